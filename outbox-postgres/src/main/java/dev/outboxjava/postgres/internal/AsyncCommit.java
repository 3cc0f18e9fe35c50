package dev.outboxjava.postgres.internal;

import org.jooq.Field;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * Lets one transaction commit without waiting for the WAL flush: for the writes a database crash may
 * undo at no cost but a repeat — a lease (its events are published again) and a wake-up hint.
 */
public final class AsyncCommit {

    /**
     * A value expression switching the current transaction, and only it, to
     * {@code synchronous_commit = off}: put in a statement's select list or FROM item, it costs no
     * extra round trip, and the setting never stays on a pooled connection (a producer's commit there
     * stays durable).
     */
    public static final Field<String> THIS_TRANSACTION = setLocal("synchronous_commit", "off");

    /** {@link #THIS_TRANSACTION} as SQL text, for statements that are not built with jOOQ. */
    public static final String FOR_THIS_TRANSACTION = PreparedSql.render(THIS_TRANSACTION);

    private AsyncCommit() {}

    /** {@code set_config(setting, value, true)}: a setting for the current transaction only. */
    public static Field<String> setLocal(String setting, String value) {
        return DSL.function("set_config", SQLDataType.CLOB, DSL.inline(setting), DSL.inline(value), DSL.inline(true));
    }
}
