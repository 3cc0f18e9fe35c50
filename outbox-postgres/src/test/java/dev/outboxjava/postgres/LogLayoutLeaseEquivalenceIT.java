package dev.outboxjava.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.DeadLetterMark;
import dev.outboxjava.core.port.RetryMark;
import dev.outboxjava.core.time.ManualClock;
import dev.outboxjava.postgres.internal.Identifiers;
import dev.outboxjava.postgres.internal.LogLayoutDdl;
import dev.outboxjava.postgres.internal.appendlog.LogLease;
import dev.outboxjava.testkit.postgres.PostgresExtension;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The append-only layout's lease statements built with jOOQ read and take exactly what the same
 * statements written out by hand do, row for row and column for column: the position, the state
 * table's due events and the log's new ones, on a table with events in every state (dead-lettered,
 * waiting for a retry, published, released, in flight, new). Each statement runs in a transaction that
 * is rolled back, so both see the same rows.
 */
class LogLayoutLeaseEquivalenceIT {

    @RegisterExtension
    static final PostgresExtension postgres = new PostgresExtension();

    private static final AtomicInteger TABLES = new AtomicInteger();
    private final ManualClock clock = ManualClock.startingAtEpochOf2024();

    /** %1$s the log, %2$s the state table, %3$s the state's columns, %4$s the per-key condition. */
    private static final String RETRY_LEASE_BY_HAND = """
            WITH r AS (
              UPDATE %2$s SET status = 'in_flight', lease_id = ?, leased_at = ?
               WHERE id IN (SELECT c.id FROM %2$s c WHERE c.status = 'pending' AND c.next_attempt_at <= ?%4$s
                             ORDER BY c.seq LIMIT ? FOR UPDATE SKIP LOCKED)
              RETURNING id, seq, status, attempts, last_error, next_attempt_at, leased_at, lease_id)
            SELECT %3$s FROM r s JOIN %1$s e ON e.id = s.id AND e.seq = s.seq
            """;
    /** %1$s the state table, %2$s the dead-letter condition, %3$s the leased keys. */
    private static final String RETRY_PER_KEY_BY_HAND = """

                               AND (c.event_key IS NULL OR (c.event_key NOT IN %3$s AND NOT EXISTS (
                                    SELECT 1 FROM %1$s b WHERE b.event_key = c.event_key AND b.seq < c.seq
                                       AND (b.status = 'in_flight' OR (b.status = 'pending' AND b.next_attempt_at > ?)%2$s))
                                  AND NOT EXISTS (
                                    SELECT 1 FROM unnest(?::text[], ?::text[]::xid8[], ?::bigint[])
                                                  AS un(event_key, xact_id, seq)
                                     WHERE un.event_key = c.event_key AND un.seq < c.seq
                                       AND (un.xact_id, un.seq) > (?::text::xid8, ?))))\
            """;

    private static final String STATE_EVENT_COLUMNS = "e.id, e.seq, e.type, e.source, e.event_key, e.destination,"
            + " e.routing_key, e.content_type, e.payload, e.headers, s.status, s.attempts, e.max_attempts,"
            + " s.last_error, s.next_attempt_at, e.created_at, s.leased_at, s.lease_id, NULL::timestamptz,"
            + " e.subject, e.data_schema";
    /** %1$s the position table, %2$s the floor table. */
    private static final String POSITION_BY_HAND = """
            SELECT p.done::text, coalesce(p.upto, pg_current_snapshot())::text, p.upto IS NULL,
                   p.xact_id::text, p.seq, ARRAY(SELECT pg_snapshot_xip(p.done))::text,
                   pg_snapshot_xmax(p.done)::text, pg_snapshot_xmax(coalesce(p.upto, pg_current_snapshot()))::text,
                   coalesce((SELECT f.seq FROM %2$s f ORDER BY f.id DESC LIMIT 1), -9223372036854775808)
              FROM ((SELECT done, upto, xact_id, seq FROM %1$s ORDER BY id DESC LIMIT 1)
                    UNION ALL SELECT '1:1:'::pg_snapshot, NULL, '0'::xid8, 0 LIMIT 1) p
            """;
    /** %1$s log, %2$s state, %4$s log columns, %5$s lease condition, %6$s lease table. */
    private static final String FRESH_LEASE_BY_HAND = """
            WITH f AS (
              (SELECT %4$s FROM %1$s
                WHERE xact_id = ANY(ARRAY(SELECT x FROM unnest(?::text::xid8[]) x
                                           WHERE pg_visible_in_snapshot(x, ?::text::pg_snapshot)))
                  AND (xact_id, seq) >= (?::text::xid8, ?) AND seq >= ? AND NOT kept
                ORDER BY xact_id, seq LIMIT ?)
              UNION ALL
              (SELECT %4$s FROM %1$s
                WHERE (xact_id, seq) >= (?::text::xid8, ?) AND xact_id < ?::text::xid8
                  AND pg_visible_in_snapshot(xact_id, ?::text::pg_snapshot) AND seq >= ? AND NOT kept
                ORDER BY xact_id, seq LIMIT ?)
              ORDER BY xact_id, seq LIMIT ?),
            v AS (SELECT ?::uuid AS lease_id, ?::timestamptz AS at, ?::timestamptz AS brief_since, ?::smallint AS gen),
            %7$s
            g0 AS MATERIALIZED (SELECT f.*, %5$s AS lease_it, %8$s AS waits FROM f, v),
            g1 AS (SELECT g0.*, coalesce(bool_or(g0.lease_it) OVER (ORDER BY g0.xact_id DESC, g0.seq DESC
                                  ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), false) AS later
                     FROM g0),
            g AS (SELECT g1.*,
                         bool_or(g1.waits AND NOT g1.later) OVER (ORDER BY g1.xact_id, g1.seq
                           ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS left_in_log,
                         g1.waits AND NOT g1.later AND NOT coalesce(bool_or(g1.waits AND NOT g1.later)
                           OVER (ORDER BY g1.xact_id, g1.seq ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING),
                           false) AS stop
                    FROM g1),
            st AS (
              INSERT INTO %2$s (id, seq, event_key, status, attempts, next_attempt_at, gen)
              SELECT g.id, g.seq, g.event_key, 'pending', 0, g.next_attempt_at,
                     CASE WHEN g.next_attempt_at <= g.created_at OR g.next_attempt_at <= v.at THEN v.gen ELSE -1 END
                FROM g, v
               WHERE NOT g.lease_it AND NOT g.left_in_log
              RETURNING 1),
            lt AS (
              INSERT INTO %6$s (gen, lease_id, leased_at, ids, keys, seqs)
              SELECT v.gen, v.lease_id, v.at, array_agg(g.id ORDER BY g.seq),
                     coalesce(array_agg(DISTINCT g.event_key) FILTER (WHERE g.event_key IS NOT NULL), '{}'),
                     array_agg(g.seq ORDER BY g.seq)
                FROM g, v WHERE g.lease_it GROUP BY v.gen, v.lease_id, v.at
              ON CONFLICT (lease_id, gen) DO UPDATE SET ids = %6$s.ids || excluded.ids,
                                                   keys = %6$s.keys || excluded.keys,
                                                   seqs = %6$s.seqs || excluded.seqs
              RETURNING 1),
            w AS (SELECT (SELECT count(*) FROM st) + (SELECT count(*) FROM lt) AS written)
            SELECT g.id, g.seq, g.type, g.source, g.event_key, g.destination, g.routing_key, g.content_type,
                   g.payload, g.headers, 'in_flight', 0, g.max_attempts, NULL::text, g.next_attempt_at,
                   g.created_at, v.at, v.lease_id, NULL::timestamptz, g.subject, g.data_schema,
                   g.xact_id::text, g.lease_it, g.stop
              FROM g, v, w WHERE w.written >= 0 AND (NOT g.left_in_log OR g.stop)
             ORDER BY g.xact_id, g.seq
            """;

    private static final String LOG_COLUMNS = "id, seq, type, source, event_key, destination, routing_key,"
            + " content_type, payload, headers, max_attempts, next_attempt_at, created_at, subject, data_schema, xact_id";
    /** %1$s state, %2$s dead-letter condition. */
    private static final String FRESH_PER_KEY_BY_HAND = """
            (f.next_attempt_at <= v.at AND (f.event_key IS NULL OR (
               f.event_key NOT IN (SELECT hk.event_key FROM hk)
               AND NOT EXISTS (SELECT 1 FROM %1$s h WHERE h.event_key = f.event_key
                              AND (h.status IN ('in_flight', 'pending')%2$s))
               AND NOT EXISTS (SELECT 1 FROM f e WHERE e.event_key = f.event_key
                                  AND e.seq < f.seq AND e.next_attempt_at > v.at)
               AND NOT EXISTS (SELECT 1 FROM bk WHERE bk.event_key = f.event_key AND bk.first_unread < f.seq))))\
            """;

    /** The keys of the leases in flight, each with its oldest lease; %1$s the lease table. */
    private static final String HELD_KEYS_BY_HAND = """
            hk AS (SELECT unnest(lk.keys) AS event_key, min(lk.leased_at) AS held_since FROM %1$s lk GROUP BY 1),
            fl AS (SELECT f.xact_id, f.seq FROM f ORDER BY f.xact_id DESC, f.seq DESC LIMIT 1),
            bk AS (SELECT un.event_key, min(un.seq) AS first_unread
                     FROM unnest(?::text[], ?::text[]::xid8[], ?::bigint[]) AS un(event_key, xact_id, seq), fl
                    WHERE (un.xact_id, un.seq) > (fl.xact_id, fl.seq) GROUP BY un.event_key),
            """;

    /** Held only by a lease younger than the brief hold: waits in the log; %1$s state, %2$s dead-letter condition. */
    private static final String WAITS_PER_KEY_BY_HAND = """
            (f.next_attempt_at <= v.at
               AND f.event_key IN (SELECT hk.event_key FROM hk, v b WHERE hk.held_since >= b.brief_since)
               AND NOT EXISTS (SELECT 1 FROM %1$s h WHERE h.event_key = f.event_key
                              AND (h.status IN ('in_flight', 'pending')%2$s))
               AND NOT EXISTS (SELECT 1 FROM f e WHERE e.event_key = f.event_key
                                  AND e.seq < f.seq AND e.next_attempt_at > v.at)
               AND NOT EXISTS (SELECT 1 FROM bk WHERE bk.event_key = f.event_key AND bk.first_unread < f.seq))\
            """;

    static Stream<Arguments> orderings() {
        return Stream.of(
                Arguments.of(Ordering.none()),
                Arguments.of(Ordering.perKey(Ordering.AfterDeadLetter.HOLD_KEY)),
                Arguments.of(Ordering.perKey(Ordering.AfterDeadLetter.CONTINUE)));
    }

    @ParameterizedTest
    @MethodSource("orderings")
    @DisplayName("the log lease's statements read and take what the hand-written ones do")
    void sameRows(Ordering ordering) throws SQLException {
        PostgresOutboxStore store = storeInEveryState(ordering);
        Identifiers.TableName table = store.config().table();
        LogLease queries = new LogLease(table, ordering);
        String t = table.quoted();
        String s = LogLayoutDdl.stateTable(table).quoted();
        String l = LogLayoutDdl.leaseTable(table).quoted();
        String leasedKeys = "(SELECT unnest(lk.keys) FROM " + l + " lk)";
        boolean perKey = ordering.isPerKey();
        String retryByHand = RETRY_LEASE_BY_HAND.formatted(
                t,
                s,
                STATE_EVENT_COLUMNS,
                perKey
                        ? RETRY_PER_KEY_BY_HAND.formatted(
                                s, ordering.deadLetterHoldsKey() ? " OR b.status = 'failed'" : "", leasedKeys)
                        : "");
        String positionByHand = POSITION_BY_HAND.formatted(
                LogLayoutDdl.positionTable(table).quoted(),
                LogLayoutDdl.floorTable(table).quoted());
        String freshByHand = FRESH_LEASE_BY_HAND.formatted(
                t,
                s,
                null,
                LOG_COLUMNS,
                perKey
                        ? FRESH_PER_KEY_BY_HAND.formatted(
                                s, ordering.deadLetterHoldsKey() ? " OR h.status = 'failed'" : "")
                        : "f.next_attempt_at <= v.at",
                l,
                perKey ? HELD_KEYS_BY_HAND.formatted(l) : "",
                perKey
                        ? WAITS_PER_KEY_BY_HAND.formatted(
                                s, ordering.deadLetterHoldsKey() ? " OR h.status = 'failed'" : "")
                        : "false");
        int checked = 0;
        for (Instant at : List.of(clock.instant(), clock.instant().plus(Duration.ofMinutes(2)))) {
            for (int limit : List.of(1, 3, 100)) {
                List<List<String>> retried = retried(queries, queries.retryLeaseSql(), at, limit);
                assertThat(retried)
                        .as("due state rows at %s, limit %d", at, limit)
                        .isEqualTo(retried(queries, retryByHand, at, limit));
                List<List<String>> fresh = fresh(queries, queries.freshLeaseSql(), at, limit);
                assertThat(fresh)
                        .as("new log rows at %s, limit %d", at, limit)
                        .isEqualTo(fresh(queries, freshByHand, at, limit));
                checked += retried.size() + fresh.size();
            }
        }
        assertThat(checked).isPositive();
        try (Connection connection = postgres.dataSource().getConnection()) {
            connection.setAutoCommit(false);
            try {
                assertThat(rows(connection, queries.positionSql())).isEqualTo(rows(connection, positionByHand));
            } finally {
                connection.rollback();
            }
        }
    }

    /** Six keys of five events and five unkeyed ones; leased, marked in every way; then more appended. */
    private PostgresOutboxStore storeInEveryState(Ordering ordering) {
        PostgresOutboxStore store = PostgresOutboxStore.create(
                postgres.dataSource(),
                PostgresOutboxConfig.builder()
                        .tableName(postgres.schema() + ".log_lease_equivalence_" + TABLES.incrementAndGet())
                        .layout(StoreLayout.APPEND_LOG)
                        .ordering(ordering)
                        .build());
        store.ensureSchema();
        store.transactional().inTransaction(connection -> events(0));
        UUID lease = UUID.randomUUID();
        List<OutboxEvent> leased = store.lease(lease, 10, clock.instant());
        assertThat(leased).hasSizeGreaterThanOrEqualTo(4);
        store.markDeadLettered(lease, List.of(new DeadLetterMark(leased.get(0).id(), "boom")), clock.instant());
        store.markRetry(
                lease,
                List.of(new RetryMark(
                        leased.get(1).id(), "later", clock.instant().plus(Duration.ofMinutes(1)))),
                clock.instant());
        store.markPublished(lease, List.of(leased.get(2).id()), clock.instant());
        store.release(
                lease,
                leased.subList(3, leased.size()).stream().map(OutboxEvent::id).toList(),
                clock.instant());
        assertThat(store.lease(UUID.randomUUID(), 3, clock.instant())).isNotEmpty();
        store.transactional().inTransaction(connection -> events(5));
        return store;
    }

    private List<OutboxEvent> events(int from) {
        List<OutboxEvent> events = new ArrayList<>();
        for (int n = from; n < from + 5; n++) {
            for (int key = 0; key < 6; key++) {
                events.add(event("key-" + key, n));
            }
            events.add(event(null, n));
        }
        return events;
    }

    private OutboxEvent event(String key, int n) {
        OutboxEvent.Builder builder = OutboxEvent.builder()
                .clock(clock)
                .type("account.changed")
                .destination("accounts")
                .payload(("" + n).getBytes(StandardCharsets.UTF_8));
        if (key != null) {
            builder.key(key);
        }
        return builder.build();
    }

    private static final UUID LEASE = UUID.randomUUID();

    /** The rows of the state-table read, in a transaction rolled back. */
    private static List<List<String>> retried(LogLease queries, String sql, Instant at, int limit) throws SQLException {
        try (Connection connection = postgres.dataSource().getConnection()) {
            connection.setAutoCommit(false);
            try (PreparedStatement statement = connection.prepareStatement(sql)) {
                queries.bindRetry(statement, queries.readPosition(connection), LEASE, at, limit);
                return sorted(read(statement));
            } finally {
                connection.rollback();
                connection.setAutoCommit(true);
            }
        }
    }

    /** The rows of the log read from the current position, in a transaction rolled back. */
    private static List<List<String>> fresh(LogLease queries, String sql, Instant at, int limit) throws SQLException {
        try (Connection connection = postgres.dataSource().getConnection()) {
            connection.setAutoCommit(false);
            try (PreparedStatement statement = connection.prepareStatement(sql)) {
                queries.bindFresh(statement, queries.readPosition(connection), LEASE, at, limit);
                return read(statement);
            } finally {
                connection.rollback();
                connection.setAutoCommit(true);
            }
        }
    }

    private static List<List<String>> rows(Connection connection, String sql) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            return read(statement);
        }
    }

    private static List<List<String>> read(PreparedStatement statement) throws SQLException {
        List<List<String>> rows = new ArrayList<>();
        try (ResultSet rs = statement.executeQuery()) {
            int columns = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                List<String> row = new ArrayList<>(columns);
                for (int c = 1; c <= columns; c++) {
                    // bytea by its bytes (its text form depends on the driver's transfer format)
                    Object value = rs.getObject(c);
                    row.add(value instanceof byte[] bytes ? HexFormat.of().formatHex(bytes) : rs.getString(c));
                }
                rows.add(row);
            }
        }
        return rows;
    }

    private static List<List<String>> sorted(List<List<String>> rows) {
        rows.sort((a, b) -> Long.compare(Long.parseLong(a.get(1)), Long.parseLong(b.get(1))));
        return rows;
    }
}
