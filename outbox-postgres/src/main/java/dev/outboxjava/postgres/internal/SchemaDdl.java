package dev.outboxjava.postgres.internal;

import dev.outboxjava.core.Ordering;
import dev.outboxjava.postgres.WakeUpMode;

/**
 * Writes the DDL of one outbox table: the shipped migration files ({@link MigrationFiles}) for the
 * configured table, the per-key indexes when ordering is per key, and the wake-up trigger (created or
 * dropped), which no shipped file has because it depends on the producers' setup. Every statement is
 * idempotent.
 */
public final class SchemaDdl {

    private SchemaDdl() {}

    /**
     * The DDL for a table.
     *
     * @param table   validated table name
     * @param channel validated channel name (embedded as a literal in the trigger function)
     * @param wakeUp  whether the NOTIFY trigger is created or dropped
     */
    public static String render(Identifiers.TableName table, String channel, WakeUpMode wakeUp) {
        return render(table, channel, wakeUp, Ordering.none());
    }

    /**
     * The DDL for a table, with the per-key index when {@code ordering} is per key.
     */
    public static String render(Identifiers.TableName table, String channel, WakeUpMode wakeUp, Ordering ordering) {
        StringBuilder sql = new StringBuilder();
        sql.append("-- Outbox for Java: the outbox table ")
                .append(table.display())
                .append(" (the migrations in ")
                .append(MigrationFiles.OUTBOX_LOCATION)
                .append(").\n");
        sql.append(MigrationFiles.render(MigrationFiles.OUTBOX, MigrationFiles.OUTBOX_TABLE_PLACEHOLDER, table));
        if (ordering.isPerKey()) {
            sql.append('\n')
                    .append(MigrationFiles.render(
                            MigrationFiles.OUTBOX_PER_KEY, MigrationFiles.OUTBOX_TABLE_PLACEHOLDER, table));
            sql.append("""
                    -- The single per-key index of pre-release snapshots, superseded by the two above.
                    DROP INDEX IF EXISTS %1$s;
                    """.formatted(table.quotedSibling("_key_order_idx")));
        }
        sql.append(wakeUp(table, channel, wakeUp));
        return sql.toString();
    }

    /** The wake-up trigger's statements: created with {@link WakeUpMode#TRIGGER_NOTIFY}, dropped otherwise. */
    public static String wakeUp(Identifiers.TableName table, String channel, WakeUpMode wakeUp) {
        String t = table.quoted();
        String name = table.table();
        StringBuilder sql = new StringBuilder();
        String trigger = Identifiers.quote(name + "_notify");
        if (wakeUp == WakeUpMode.TRIGGER_NOTIFY) {
            sql.append("""

                    -- Wake-up: one notification per appending statement (an empty payload, so PostgreSQL
                    -- folds repeats within a transaction); listeners on channel '%1$s' wake the relay.
                    CREATE OR REPLACE FUNCTION %2$s() RETURNS trigger LANGUAGE plpgsql AS $$
                    BEGIN
                        PERFORM pg_notify('%1$s', '');
                        RETURN NULL;
                    END
                    $$;
                    CREATE OR REPLACE TRIGGER %3$s AFTER INSERT ON %4$s
                        FOR EACH STATEMENT EXECUTE FUNCTION %2$s();
                    """.formatted(channel, table.quotedSibling("_notify"), trigger, t));
        } else {
            sql.append("""

                    -- No NOTIFY trigger: producers notify after commit (OutboxNotifier), or relays poll.
                    DROP TRIGGER IF EXISTS %1$s ON %2$s;
                    """.formatted(trigger, t));
        }
        return sql.toString();
    }

    /** Name of the per-key lease's index over keyed pending events (the commit-order guard's probe). */
    public static String keyGuardIndex(Identifiers.TableName table) {
        return table.table() + "_key_guard_idx";
    }

    /** Name of the per-key lease's index over keyed events in flight or dead-lettered (the held-key probe). */
    public static String keyHeldIndex(Identifiers.TableName table) {
        return table.table() + "_key_held_idx";
    }

    /** Name of the lease query's partial index (plan tests look for it). */
    public static String pendingIndex(Identifiers.TableName table) {
        return table.table() + "_pending_idx";
    }
}
