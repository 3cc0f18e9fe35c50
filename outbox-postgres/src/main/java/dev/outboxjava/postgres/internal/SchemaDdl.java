package dev.outboxjava.postgres.internal;

import dev.outboxjava.core.Ordering;
import dev.outboxjava.postgres.WakeUpMode;

/**
 * Writes the DDL of one outbox table. The shipped migration file is this text for the default
 * configuration (a unit test keeps the two identical), so Flyway/Liquibase users and
 * {@code ensureSchema()} users get the same table. Every statement is idempotent.
 */
public final class SchemaDdl {

    private SchemaDdl() {
    }

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
        String t = table.quoted();
        String name = table.table();
        StringBuilder sql = new StringBuilder();
        sql.append("""
                -- Outbox for Java: the outbox table %1$s (schema version 1).
                -- Requires PostgreSQL 14 or later.
                CREATE TABLE IF NOT EXISTS %2$s (
                    id              uuid        NOT NULL,
                    -- Unique by construction (identity, ALWAYS). Deliberately no index over all rows: a
                    -- full index on seq would compete with the pending partial index for the lease
                    -- query's ORDER BY seq and walk every sent row once statistics go stale.
                    seq             bigint      GENERATED ALWAYS AS IDENTITY,
                    type            text        NOT NULL,
                    source          text        NOT NULL,
                    event_key       text,
                    destination     text        NOT NULL,
                    routing_key     text        NOT NULL DEFAULT '',
                    content_type    text        NOT NULL,
                    payload         bytea       NOT NULL,
                    headers         jsonb       NOT NULL DEFAULT '{}',
                    status          text        NOT NULL DEFAULT 'pending',
                    attempts        integer     NOT NULL DEFAULT 0,
                    max_attempts    integer     NOT NULL,
                    last_error      text,
                    next_attempt_at timestamptz NOT NULL,
                    created_at      timestamptz NOT NULL,
                    leased_at       timestamptz,
                    lease_id        uuid,
                    sent_at         timestamptz,
                    -- The writing transaction: per-key ordering leases an event only once every
                    -- transaction older than it has ended (commit-order guard).
                    xact_id         xid8        NOT NULL DEFAULT pg_current_xact_id(),
                    CONSTRAINT %3$s PRIMARY KEY (id),
                    CONSTRAINT %4$s CHECK (status IN ('pending', 'in_flight', 'sent', 'failed')),
                    CONSTRAINT %5$s CHECK (attempts >= 0 AND max_attempts >= 1)
                ) WITH (
                    -- Every status change rewrites the row (status is in the partial-index predicates,
                    -- so no HOT update): vacuum early and unthrottled, or dead index entries slow the lease query.
                    autovacuum_vacuum_scale_factor = 0.01,
                    autovacuum_vacuum_threshold = 1000,
                    autovacuum_vacuum_insert_scale_factor = 0.05,
                    autovacuum_analyze_scale_factor = 0.02,
                    autovacuum_vacuum_cost_delay = 0
                );

                -- The lease query: due pending events in sequence order.
                CREATE INDEX IF NOT EXISTS %6$s ON %2$s (seq, next_attempt_at) WHERE status = 'pending';
                -- The sweeper: expired leases.
                CREATE INDEX IF NOT EXISTS %7$s ON %2$s (leased_at) WHERE status = 'in_flight';
                -- Dead letters, oldest first.
                CREATE INDEX IF NOT EXISTS %8$s ON %2$s (seq) WHERE status = 'failed';
                -- The cleaner: sent events past retention.
                CREATE INDEX IF NOT EXISTS %9$s ON %2$s (sent_at) WHERE status = 'sent';
                """.formatted(table.display(), t,
                Identifiers.quote(name + "_pkey"),
                Identifiers.quote(name + "_status_check"), Identifiers.quote(name + "_attempts_check"),
                Identifiers.quote(pendingIndex(table)), Identifiers.quote(name + "_in_flight_idx"),
                Identifiers.quote(name + "_failed_idx"), Identifiers.quote(name + "_sent_idx")));
        if (ordering.isPerKey()) {
            sql.append("""
                    -- Per-key ordering: a lease candidate probes its key's earlier pending events for the
                    -- commit-order guard, and its earlier events that hold the key (in flight, dead-lettered);
                    -- every condition is a key column, so neither probe reads the rows.
                    CREATE INDEX IF NOT EXISTS %1$s ON %2$s (event_key, seq, xact_id)
                        WHERE status = 'pending' AND event_key IS NOT NULL;
                    CREATE INDEX IF NOT EXISTS %4$s ON %2$s (event_key, seq)
                        WHERE status IN ('in_flight', 'failed') AND event_key IS NOT NULL;
                    -- Replaced by the two indexes above (schema of 0.1.0 snapshots before them).
                    DROP INDEX IF EXISTS %3$s;
                    """.formatted(Identifiers.quote(keyGuardIndex(table)), t,
                    table.quotedSibling("_key_order_idx"), Identifiers.quote(keyHeldIndex(table))));
        }
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
