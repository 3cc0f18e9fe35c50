package dev.outboxjava.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.DeadLetterMark;
import dev.outboxjava.core.port.RetryMark;
import dev.outboxjava.core.time.ManualClock;
import dev.outboxjava.postgres.internal.OutboxTable;
import dev.outboxjava.postgres.internal.inplace.LeaseQuery;
import dev.outboxjava.postgres.internal.inplace.OrderedLeaseQuery;
import dev.outboxjava.testkit.postgres.PostgresExtension;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The lease statements built with jOOQ take exactly the events that the same statements written out
 * by hand take, on one table in every state a lease meets: keys with events in flight, waiting for a
 * retry, dead-lettered and published, unkeyed events, a limit that cuts a run of a key.
 * Each statement runs in a transaction that is rolled back, so both see the same rows.
 */
class LeaseEquivalenceIT {

    @RegisterExtension
    static final PostgresExtension postgres = new PostgresExtension();

    private static final AtomicInteger TABLES = new AtomicInteger();
    private final ManualClock clock = ManualClock.startingAtEpochOf2024();

    /** The unordered lease as a hand-written statement (%1$s: the table). Binds: lease id, now, now, limit. */
    private static final String LEASE_BY_HAND = """
            UPDATE %1$s SET status = 'in_flight', lease_id = ?, leased_at = ?
              FROM (SELECT set_config('synchronous_commit', 'off', true)) AS async_commit
             WHERE id IN (SELECT id FROM %1$s WHERE status = 'pending' AND next_attempt_at <= ?
                          ORDER BY seq LIMIT ? FOR UPDATE SKIP LOCKED)
            RETURNING id""";

    /**
     * The per-key lease as a hand-written statement (%1$s: the table, %2$s: the dead-letter condition).
     * Binds: lease id, now, now, now, limit.
     */
    private static final String ORDERED_LEASE_BY_HAND = """
            UPDATE %1$s SET status = 'in_flight', lease_id = ?, leased_at = ?
             WHERE id IN (
               SELECT c.id FROM %1$s c
                WHERE c.status = 'pending' AND c.next_attempt_at <= ?
                  AND (c.event_key IS NULL OR (
                        c.xact_id < pg_snapshot_xmin(pg_current_snapshot())
                    AND c.seq < coalesce(((
                          SELECT coalesce(jsonb_object_agg(held.event_key, held.seq), '{}') FROM (
                            SELECT event_key, min(seq) AS seq FROM (
                              SELECT event_key, seq FROM %1$s WHERE status = 'in_flight' AND event_key IS NOT NULL
                              UNION ALL
                              SELECT event_key, seq FROM %1$s
                               WHERE status = 'pending' AND next_attempt_at > ? AND event_key IS NOT NULL
                            ) blocker GROUP BY event_key) held
                        ) ->> c.event_key)::bigint, 9223372036854775807)%2$s
                    AND NOT EXISTS (
                        SELECT 1 FROM %1$s b
                         WHERE b.event_key = c.event_key AND b.status = 'pending' AND b.seq < c.seq
                           AND b.xact_id >= pg_snapshot_xmin(pg_current_snapshot()))))
                ORDER BY c.seq
                LIMIT ?
                FOR UPDATE SKIP LOCKED)
            RETURNING id""";

    private static final String HELD_BY_DEAD_LETTER = """

                    AND NOT EXISTS (
                        SELECT 1 FROM %1$s f
                         WHERE f.event_key = c.event_key AND f.status IN ('in_flight', 'failed') AND f.seq < c.seq)""";

    @Test
    @DisplayName("the unordered lease takes what the hand-written one takes")
    void lease() throws SQLException {
        PostgresOutboxStore store = storeInEveryState(Ordering.none());
        String table = store.config().tableName();
        String sql = new LeaseQuery(new OutboxTable(store.config().table())).sql();
        for (Instant at : List.of(clock.instant(), clock.instant().plus(Duration.ofMinutes(2)))) {
            for (int limit : List.of(1, 3, 100)) {
                assertThat(leased(sql, 4, at, limit))
                        .as("at %s, limit %d", at, limit)
                        .isEqualTo(leased(LEASE_BY_HAND.formatted(table), 4, at, limit))
                        .isNotEmpty();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Ordering.AfterDeadLetter.class)
    @DisplayName("the per-key lease takes what the hand-written one takes")
    void orderedLease(Ordering.AfterDeadLetter afterDeadLetter) throws SQLException {
        Ordering ordering = Ordering.perKey(afterDeadLetter);
        PostgresOutboxStore store = storeInEveryState(ordering);
        String table = store.config().tableName();
        String sql = new OrderedLeaseQuery(new OutboxTable(store.config().table()), ordering).sql();
        String byHand = ORDERED_LEASE_BY_HAND.formatted(
                table, ordering.deadLetterHoldsKey() ? HELD_BY_DEAD_LETTER.formatted(table) : "");
        for (Instant at : List.of(clock.instant(), clock.instant().plus(Duration.ofMinutes(2)))) {
            for (int limit : List.of(1, 3, 100)) {
                assertThat(leased(sql, at, limit))
                        .as("at %s, limit %d", at, limit)
                        .isEqualTo(leased(byHand, 5, at, limit))
                        .isNotEmpty();
            }
        }
    }

    /**
     * Six keys of five events and five unkeyed ones, interleaved; then one lease of ten: one event dead
     * letter, one waiting a minute for its retry, one published, the rest released; then a lease of
     * three, left in flight.
     */
    private PostgresOutboxStore storeInEveryState(Ordering ordering) {
        PostgresOutboxStore store = PostgresOutboxStore.create(
                postgres.dataSource(),
                PostgresOutboxConfig.builder()
                        .layout(StoreLayout.IN_PLACE)
                        .tableName(postgres.schema() + ".lease_equivalence_" + TABLES.incrementAndGet())
                        .ordering(ordering)
                        .build());
        store.ensureSchema();
        List<OutboxEvent> events = new ArrayList<>();
        for (int n = 0; n < 5; n++) {
            for (int key = 0; key < 6; key++) {
                events.add(event("key-" + key, n));
            }
            events.add(event(null, n));
        }
        store.transactional().inTransaction(connection -> events);
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
        return store;
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

    /**
     * The ids a lease statement takes at {@code at}, in a transaction rolled back. Binds: the lease id,
     * then the instant up to the last bind, then the limit.
     */
    private static List<UUID> leased(String sql, int binds, Instant at, int limit) throws SQLException {
        return leased(sql, statement -> {
            statement.setObject(1, UUID.randomUUID());
            for (int p = 2; p < binds; p++) {
                statement.setObject(p, at.atOffset(ZoneOffset.UTC));
            }
            statement.setInt(binds, limit);
        });
    }

    /** The per-key statement's lease over the whole backlog, as one window. */
    private static List<UUID> leased(String orderedSql, Instant at, int limit) throws SQLException {
        return leased(
                orderedSql,
                statement -> OrderedLeaseQuery.bindLease(
                        statement, UUID.randomUUID(), at, limit, OrderedLeaseQuery.HEAD, OrderedLeaseQuery.END));
    }

    private interface Binder {
        void bind(PreparedStatement statement) throws SQLException;
    }

    private static List<UUID> leased(String sql, Binder binder) throws SQLException {
        try (Connection connection = postgres.dataSource().getConnection()) {
            connection.setAutoCommit(false);
            try (PreparedStatement statement = connection.prepareStatement(sql)) {
                binder.bind(statement);
                List<UUID> ids = new ArrayList<>();
                try (ResultSet rows = statement.executeQuery()) {
                    while (rows.next()) {
                        ids.add(rows.getObject(1, UUID.class));
                    }
                }
                ids.sort(null);
                return ids;
            } finally {
                connection.rollback();
                connection.setAutoCommit(true);
            }
        }
    }
}
