// Fixture for ArchitectureTest: deliberately breaks "the core depends only on java.. and org.slf4j..".
// It lives in a core package (the rule's scope) although its file sits with the other fixtures.
package dev.outboxjava.core.archviolation;

import org.jooq.Name;
import org.jooq.impl.DSL;

/** A core class that reaches for a database library. */
public final class CoreUsingJooq {

    private CoreUsingJooq() {}

    public static Name tableName() {
        return DSL.name("outbox_events");
    }
}
