package dev.outboxjava.benchmarks.internal;

import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.postgres.StoreLayout;
import dev.outboxjava.postgres.WakeUpMode;
import javax.sql.DataSource;

/**
 * Creates outbox tables exactly as the library does ({@code ensureSchema()}), and loads them with one
 * {@code INSERT … SELECT generate_series} each: 1 KB random payloads (1,000 distinct ones, so a
 * compressing producer cannot shrink a batch to nothing), keys {@code key-0..999} written round-robin
 * (or as many as asked), time-ordered ids.
 */
public final class OutboxTables {

    /** Payload size of every benchmark event. */
    public static final int PAYLOAD_BYTES = 1024;

    /** Distinct event keys of a loaded backlog unless asked otherwise. */
    public static final int KEYS = 1000;

    private final Services services;

    public OutboxTables(Services services) {
        this.services = services;
    }

    /** A new outbox table in the benchmark schema and a store over it. */
    public PostgresOutboxStore create(String prefix, CompletionMode completion, WakeUpMode wakeUp, DataSource pool) {
        return create(prefix, completion, wakeUp, Ordering.none(), pool);
    }

    /** A new outbox table in the benchmark schema and a store over it, with the given ordering's indexes. */
    public PostgresOutboxStore create(
            String prefix, CompletionMode completion, WakeUpMode wakeUp, Ordering ordering, DataSource pool) {
        return create(prefix, completion, wakeUp, ordering, StoreLayout.IN_PLACE, pool);
    }

    /** A new outbox table of the given layout in the benchmark schema and a store over it. */
    public PostgresOutboxStore create(
            String prefix,
            CompletionMode completion,
            WakeUpMode wakeUp,
            Ordering ordering,
            StoreLayout layout,
            DataSource pool) {
        PostgresOutboxConfig config = PostgresOutboxConfig.builder()
                .tableName(services.newTableName(prefix))
                .completionMode(completion)
                .wakeUpMode(wakeUp)
                .ordering(ordering)
                .layout(layout)
                .build();
        PostgresOutboxStore store = PostgresOutboxStore.create(pool, config);
        store.ensureSchema();
        return store;
    }

    /** Empties the table (and its dead tuples), e.g. between runs. */
    public void truncate(PostgresOutboxStore store) {
        services.execute("TRUNCATE " + relations(store.config()));
    }

    /** Drops the table with every relation of its layout (the views with them). */
    public static String dropStatement(PostgresOutboxConfig config) {
        return "DROP TABLE IF EXISTS " + relations(config) + " CASCADE";
    }

    /** The tables that hold a store's events: the in-place table, or the log with its side tables. */
    private static String relations(PostgresOutboxConfig config) {
        String table = config.tableName();
        return config.layout() == StoreLayout.APPEND_LOG
                ? table + ", " + table + "_position, " + table + "_state, " + table + "_sent, " + table + "_lease, "
                        + table + "_floor"
                : table;
    }

    /** Appends {@code rows} due pending events for {@code destination}, then VACUUM ANALYZE. */
    public void loadPending(PostgresOutboxStore store, long rows, String destination) {
        loadPending(store, rows, destination, KEYS);
    }

    /** The same over {@code keys} distinct keys, written round-robin. */
    public void loadPending(PostgresOutboxStore store, long rows, String destination, int keys) {
        load(store, rows, destination, "pending", PAYLOAD_BYTES, keys);
        vacuum(store);
    }

    /**
     * Appends {@code rows} events that were sent an hour ago, as a table keeping sent rows for its
     * retention window has them.
     */
    public void loadSent(PostgresOutboxStore store, long rows, int payloadBytes) {
        load(store, rows, "bench-sent", "sent", payloadBytes, KEYS);
    }

    public void vacuum(PostgresOutboxStore store) {
        services.execute("VACUUM ANALYZE " + store.config().tableName());
    }

    private void load(
            PostgresOutboxStore store, long rows, String destination, String status, int payloadBytes, int keys) {
        if (rows <= 0) {
            return;
        }
        if (!destination.matches("[A-Za-z0-9._-]+")) {
            throw new IllegalArgumentException("destination must be a plain name, was " + destination);
        }
        int md5s = Math.max(1, payloadBytes / 16);
        boolean sent = status.equals("sent");
        boolean inPlace = store.config().layout() == StoreLayout.IN_PLACE;
        if (!inPlace && !status.equals("pending")) {
            throw new IllegalArgumentException("the append-only log takes new events only, not " + status + " ones");
        }
        // the append-only log has no state columns: its events are pending until the relay takes them
        String stateColumns = inPlace ? ", status, attempts" : "";
        String stateValues = inPlace ? ", '" + status + "', 0" : "";
        String sentAtColumn = inPlace ? ", sent_at" : "";
        String sentAtValue = !inPlace ? "" : sent ? ", clock_timestamp() - interval '1 hour'" : ", NULL";
        // ids: 32 hex digits, increasing like the library's UUIDv7 (random ones only slow the load)
        String sql = """
                WITH pay AS (
                    SELECT g AS n, decode(string_agg(md5(random()::text || g || h), ''), 'hex') AS payload
                      FROM generate_series(0, 999) g, generate_series(1, %4$d) h GROUP BY g)
                INSERT INTO %1$s (id, type, source, event_key, destination, routing_key, content_type, payload,
                                  headers%3$s, max_attempts, next_attempt_at, created_at%9$s)
                SELECT lpad(to_hex(%5$d::bigint * 1000000000000 + i), 32, '0')::uuid, 'bench.event', '/benchmarks',
                       'key-' || (i %% %8$d), '%2$s', 'bench', 'application/octet-stream', pay.payload,
                       '{}'::jsonb%10$s, 10, clock_timestamp() - interval '1 hour',
                       clock_timestamp() - interval '1 hour'%6$s
                  FROM generate_series(1, %7$d) i JOIN pay ON pay.n = i %% 1000
                """.formatted(
                        store.config().tableName(),
                        destination,
                        stateColumns,
                        md5s,
                        loadNumber(),
                        sentAtValue,
                        rows,
                        keys,
                        sentAtColumn,
                        stateValues);
        services.execute(sql);
    }

    private long loads;

    private synchronized long loadNumber() {
        return ++loads;
    }
}
