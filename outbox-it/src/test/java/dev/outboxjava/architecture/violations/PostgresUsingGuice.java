// Fixture for ArchitectureTest: deliberately breaks "only the worker and the examples use Guice".
package dev.outboxjava.postgres.archviolation;

import com.google.inject.Guice;
import com.google.inject.Injector;

/** A PostgreSQL-adapter class that assembles itself with Guice. */
public final class PostgresUsingGuice {

    private PostgresUsingGuice() {}

    public static Injector injector() {
        return Guice.createInjector();
    }
}
