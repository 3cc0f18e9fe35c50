package dev.outboxjava.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.core.port.DeadLetterFilter;
import dev.outboxjava.core.port.DeadLetterMark;
import dev.outboxjava.core.port.RetryMark;
import dev.outboxjava.postgres.internal.Identifiers;
import dev.outboxjava.postgres.internal.LogLayoutDdl;
import dev.outboxjava.postgres.internal.appendlog.LogPartitions;
import dev.outboxjava.testkit.postgres.PostgresExtension;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import java.util.stream.IntStream;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Retention of the append-only layout: sent events go by dropping whole partitions, never row by row,
 * and only partitions holding nothing pending, in flight or waiting for a retry; dead letters are moved
 * out first and survive. The log is shaped into ranges of {@value #WIDTH} events so that a few events
 * fill several partitions. Every store operation runs on one connection, whose statistics are flushed
 * before {@code pg_stat_user_tables} is read, so that a row deleted anywhere in the log would show.
 */
class LogLayoutRetentionIT {

    @RegisterExtension
    static final PostgresExtension postgres = new PostgresExtension();

    private static final int WIDTH = 10;
    private static final Instant T0 = Instant.parse("2024-03-01T10:00:00Z");

    private Connection connection;
    private PostgresOutboxStore store;
    private Identifiers.TableName table;

    @AfterEach
    void dropStore() throws SQLException {
        if (store != null) {
            postgres.fixture().execute(LogLayoutDdl.drop(table));
        }
        if (connection != null) {
            connection.close();
        }
    }

    @Test
    @DisplayName("keep-sent: published ranges past the retention are dropped whole; a pending, retrying or in-flight"
            + " event keeps its range; a dead letter is moved out, survives, is requeued and published")
    void keepSent() throws SQLException {
        open("retention_keep", CompletionMode.KEEP_SENT);
        List<OutboxEvent> published = relayRange(Outcome.ALL_PUBLISHED);
        OutboxEvent deadLetter = relayRange(Outcome.ONE_DEAD_LETTER).get(9);
        OutboxEvent retrying = relayRange(Outcome.ONE_RETRYING).get(9);
        OutboxEvent inFlight = relayRange(Outcome.ONE_IN_FLIGHT).get(9);
        UUID inFlightLease = lastLease;
        List<OutboxEvent> unmarked = relayRange(Outcome.LEASED_UNMARKED);
        UUID unmarkedLease = lastLease;
        OutboxEvent pending = relayRange(Outcome.ONE_PENDING).get(9);

        assertThat(store.cleanUp(T0.minus(Duration.ofMinutes(1)), 100))
                .as("sent inside the retention")
                .isZero();
        assertThat(rangeNumbers())
                .as("six ranges, the one being filled and one ahead")
                .containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L);

        assertThat(store.cleanUp(T0.plus(Duration.ofMinutes(1)), 100))
                .as("ranges 1 and 2 dropped, the dead letter" + " moved out")
                .isEqualTo(19);
        assertThat(rangeNumbers()).containsExactly(3L, 4L, 5L, 6L, 7L, 8L);
        assertThat(exists(LogLayoutDdl.sentRange(table, 1))).isFalse();
        store.ensureSchema(); // idempotent: no first range again once the log has ranges
        assertThat(rangeNumbers()).containsExactly(3L, 4L, 5L, 6L, 7L, 8L);
        assertThat(published)
                .allSatisfy(event -> assertThat(store.find(event.id())).isEmpty());
        assertThat(store.find(deadLetter.id())).map(OutboxEvent::status).contains(EventStatus.FAILED);
        assertThat(store.findDeadLetters(DeadLetterFilter.any(), OptionalLong.empty(), 10)
                        .events())
                .extracting(OutboxEvent::id)
                .containsExactly(deadLetter.id());
        assertThat(store.find(retrying.id())).map(OutboxEvent::status).contains(EventStatus.PENDING);
        assertThat(store.find(inFlight.id())).map(OutboxEvent::status).contains(EventStatus.IN_FLIGHT);
        assertThat(store.find(pending.id())).map(OutboxEvent::status).contains(EventStatus.PENDING);
        assertThat(store.find(unmarked.get(0).id())).map(OutboxEvent::status).contains(EventStatus.IN_FLIGHT);
        for (long range = 3; range <= 6; range++) {
            assertThat(rows(LogLayoutDdl.range(table, range)))
                    .as("rows of range %d", range)
                    .isEqualTo(WIDTH);
        }
        assertThat(deletedRows()).as("log and sent rows deleted one by one").isZero();

        // the three blockers resolved: their ranges go at the next run
        store.markPublished(inFlightLease, List.of(inFlight.id()), T0);
        store.markPublished(
                unmarkedLease, unmarked.stream().map(OutboxEvent::id).toList(), T0);
        UUID lease = UUID.randomUUID();
        assertThat(store.lease(lease, 10, T0.plus(Duration.ofHours(1))))
                .extracting(OutboxEvent::id)
                .containsExactlyInAnyOrder(retrying.id(), pending.id());
        store.markPublished(lease, List.of(retrying.id(), pending.id()), T0);
        assertThat(store.cleanUp(T0.plus(Duration.ofMinutes(1)), 100)).isEqualTo(4 * WIDTH);
        assertThat(rangeNumbers()).containsExactly(7L, 8L);

        // the dead letter outlives its range: requeued, leased with its payload, published
        assertThat(store.requeueDeadLetters(DeadLetterFilter.ids(Set.of(deadLetter.id())), "retention", T0))
                .isEqualTo(1);
        UUID again = UUID.randomUUID();
        List<OutboxEvent> leased = store.lease(again, 10, T0);
        assertThat(leased).extracting(OutboxEvent::id).containsExactly(deadLetter.id());
        assertThat(leased.get(0).payload()).isEqualTo(deadLetter.payload());
        assertThat(store.markPublished(again, List.of(deadLetter.id()), T0).marked())
                .containsExactly(deadLetter.id());
        assertThat(store.find(deadLetter.id())).map(OutboxEvent::status).contains(EventStatus.SENT);
        assertThat(deletedRows()).as("log and sent rows deleted one by one").isZero();
        // past the retention, it goes as well: the one event deleted by itself, having been kept
        assertThat(store.cleanUp(T0.plus(Duration.ofMinutes(1)), 100)).isEqualTo(1);
        assertThat(store.find(deadLetter.id())).isEmpty();
        // the statistics do see a row deleted by itself: its sent record, from the sent table's overflow partition
        assertThat(deletedRows()).isEqualTo(1);
        assertThat(deleted(table.table() + "_kept")).isEqualTo(1);
    }

    @Test
    @DisplayName("delete-on-publish: a range whose events are all published is dropped at once, whatever the cutoff")
    void deleteOnPublish() throws SQLException {
        open("retention_delete", CompletionMode.DELETE_ON_PUBLISH);
        List<OutboxEvent> published = relayRange(Outcome.ALL_PUBLISHED);
        OutboxEvent pending = relayRange(Outcome.ONE_PENDING).get(9);
        assertThat(published)
                .allSatisfy(event -> assertThat(store.find(event.id())).isEmpty());
        assertThat(store.countByStatus()).containsEntry(EventStatus.SENT, 0L).containsEntry(EventStatus.PENDING, 1L);

        assertThat(store.cleanUp(T0.minus(Duration.ofDays(7)), 100)).isEqualTo(WIDTH);
        assertThat(rangeNumbers()).containsExactly(2L, 3L, 4L, 5L, 6L);
        assertThat(store.find(pending.id())).map(OutboxEvent::status).contains(EventStatus.PENDING);
        assertThat(deletedRows()).isZero();
    }

    @Test
    @DisplayName("a drop does not wait behind a transaction reading the log (a pg_dump): it is tried again later")
    void lockNotGranted() throws SQLException {
        open("retention_locked", CompletionMode.KEEP_SENT);
        relayRange(Outcome.ALL_PUBLISHED);
        relayRange(Outcome.ONE_PENDING);
        try (Connection reader = postgres.dataSource().getConnection()) {
            reader.setAutoCommit(false);
            try (Statement statement = reader.createStatement()) {
                statement.execute("SELECT count(*) FROM " + table.quoted()); // ACCESS SHARE until it ends
            }
            assertThat(store.cleanUp(T0.plus(Duration.ofMinutes(1)), 100)).isZero();
            assertThat(rangeNumbers()).contains(1L);
            // producers are not queued behind it: an append goes through while the reader still holds its lock
            appendOn(postgres.dataSource(), 1);
            reader.rollback();
        }
        assertThat(store.cleanUp(T0.plus(Duration.ofMinutes(1)), 100)).isEqualTo(WIDTH);
        assertThat(rangeNumbers()).doesNotContain(1L);
    }

    @Test
    @DisplayName("the floor of the log read never passes an event of a writing transaction still open: it is leased"
            + " once committed; then the floor rises past its range")
    void floorWaitsForOpenWriters() throws SQLException {
        open("retention_floor", CompletionMode.KEEP_SENT);
        LogPartitions partitions = new LogPartitions(table, CompletionMode.KEEP_SENT);
        OutboxEvent late;
        try (Connection writer = postgres.dataSource().getConnection()) {
            writer.setAutoCommit(false);
            late = events(1).get(0);
            store.writer().append(writer, List.of(late)); // sequence 1, its transaction open
            relayRange(Outcome.ALL_PUBLISHED);
            relayRange(Outcome.ALL_PUBLISHED);
            for (int run = 0; run < 3; run++) {
                partitions.maintain(connection, T0.minus(Duration.ofDays(1)), 100);
            }
            assertThat(floor())
                    .as("floor while the writer of sequence 1 is open")
                    .isLessThanOrEqualTo(1);
            writer.commit();
        }
        UUID lease = UUID.randomUUID();
        assertThat(store.lease(lease, 10, T0)).extracting(OutboxEvent::id).containsExactly(late.id());
        store.markPublished(lease, List.of(late.id()), T0);
        for (int run = 0; run < 2; run++) {
            partitions.maintain(connection, T0.minus(Duration.ofDays(1)), 100);
        }
        assertThat(floor())
                .as("floor once every event below the sequence is taken")
                .isEqualTo(2 * WIDTH + 2);
    }

    private long floor() throws SQLException {
        return single("SELECT coalesce((SELECT seq FROM "
                + LogLayoutDdl.floorTable(table).quoted() + " ORDER BY id DESC LIMIT 1), 0)");
    }

    /** What happens to a range's events: the last one (or, leased and never marked, all) holds the range. */
    private enum Outcome {
        ALL_PUBLISHED,
        ONE_DEAD_LETTER,
        ONE_RETRYING,
        ONE_IN_FLIGHT,
        LEASED_UNMARKED,
        ONE_PENDING
    }

    private UUID lastLease;

    /** Appends one range's events, leases and marks them; the last one gets the outcome. */
    private List<OutboxEvent> relayRange(Outcome outcome) throws SQLException {
        List<OutboxEvent> events = appendOn(store.dataSource(), WIDTH);
        UUID lease = UUID.randomUUID();
        lastLease = lease;
        int leased = outcome == Outcome.ONE_PENDING ? WIDTH - 1 : WIDTH;
        assertThat(store.lease(lease, leased, T0)).hasSize(leased);
        List<UUID> first =
                events.subList(0, WIDTH - 1).stream().map(OutboxEvent::id).toList();
        UUID last = events.get(WIDTH - 1).id();
        switch (outcome) {
            case ALL_PUBLISHED ->
                store.markPublished(lease, events.stream().map(OutboxEvent::id).toList(), T0);
            case ONE_DEAD_LETTER -> {
                store.markPublished(lease, first, T0);
                store.markDeadLettered(lease, List.of(new DeadLetterMark(last, "rejected")), T0);
            }
            case ONE_RETRYING -> {
                store.markPublished(lease, first, T0);
                store.markRetry(
                        lease, List.of(new RetryMark(last, "broker down", T0.plus(Duration.ofMinutes(30)))), T0);
            }
            case LEASED_UNMARKED -> {}
            default -> store.markPublished(lease, first, T0); // in flight again in the state table, or never leased
        }
        return events;
    }

    private List<OutboxEvent> appendOn(DataSource dataSource, int count) {
        List<OutboxEvent> events = events(count);
        PostgresOutboxStore.create(dataSource, store.config()).transactional().inTransaction(c -> events);
        return events;
    }

    private static List<OutboxEvent> events(int count) {
        return IntStream.range(0, count)
                .mapToObj(i -> OutboxEvent.builder()
                        .clock(Clock.fixed(T0, ZoneOffset.UTC))
                        .type("order.placed")
                        .destination("orders")
                        .payload(new byte[] {(byte) i, 42})
                        .build())
                .toList();
    }

    /** A store on one connection, its log shaped into six ranges of {@value #WIDTH} events. */
    private void open(String name, CompletionMode mode) throws SQLException {
        connection = postgres.dataSource().getConnection();
        DataSource single = new ForwardingDataSource(postgres.dataSource()) {
            @Override
            public Connection getConnection() {
                return (Connection) Proxy.newProxyInstance(
                        getClass().getClassLoader(),
                        new Class<?>[] {Connection.class},
                        (proxy, method, args) -> method.getName().equals("close") ? null : invoke(method, args));
            }
        };
        store = PostgresOutboxStore.create(
                single,
                PostgresOutboxConfig.builder()
                        .tableName(postgres.schema() + "." + name)
                        .layout(StoreLayout.APPEND_LOG)
                        .completionMode(mode)
                        .wakeUpMode(WakeUpMode.NONE)
                        .build());
        store.ensureSchema();
        table = Identifiers.tableName("tableName", store.config().tableName());
        try (Statement statement = connection.createStatement()) {
            statement.execute("DROP TABLE " + LogLayoutDdl.range(table, 1).quoted() + ", "
                    + LogLayoutDdl.sentRange(table, 1).quoted());
        }
        LogPartitions partitions = new LogPartitions(table, mode);
        for (int range = 0; range < 6; range++) {
            partitions.addRange(connection, WIDTH);
        }
        assertThat(rangeNumbers()).containsExactly(1L, 2L, 3L, 4L, 5L, 6L);
    }

    private Object invoke(Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(connection, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private List<Long> rangeNumbers() throws SQLException {
        return new LogPartitions(table, CompletionMode.KEEP_SENT)
                .ranges(connection).stream().map(LogPartitions.Range::number).toList();
    }

    private boolean exists(Identifiers.TableName name) throws SQLException {
        return single("SELECT (to_regclass('" + name.quoted() + "') IS NOT NULL)::int") == 1;
    }

    private long rows(Identifiers.TableName name) throws SQLException {
        return single("SELECT count(*) FROM " + name.quoted());
    }

    /**
     * Rows deleted one by one in the log's range partitions and the sent table's, as the statistics count
     * them (the store's one connection flushes its counts first). The kept partition is left out: a kept
     * dead letter, once published and past the retention, is the one row deleted by itself.
     */
    private long deletedRows() throws SQLException {
        return deleted(table.table() + "(_sent)?_(p[0-9]+|overflow)");
    }

    /** Rows deleted in the tables of the schema whose names match {@code pattern} (a regular expression). */
    private long deleted(String pattern) throws SQLException {
        single("SELECT 1 FROM (SELECT pg_stat_force_next_flush()) f"); // at the end of this transaction
        return single("SELECT coalesce(sum(n_tup_del), 0) FROM pg_stat_user_tables WHERE schemaname = '"
                + table.schema().orElseThrow() + "' AND relname ~ '^" + pattern + "$'");
    }

    private long single(String sql) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
