package dev.outboxjava.postgres.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.outboxjava.core.OutboxStoreException;
import dev.outboxjava.core.inbox.InboxCleaner;
import dev.outboxjava.core.inbox.InboxCleanerConfig;
import dev.outboxjava.core.inbox.InboxResult;
import dev.outboxjava.core.inbox.InboxWork;
import dev.outboxjava.core.time.ManualClock;
import dev.outboxjava.testkit.postgres.PostgresExtension;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The PostgreSQL inbox against a real database: each test has its own inbox table and its own
 * "consumer state" (a counter row the work increments) in this class's schema.
 */
@DisplayName("PostgreSQL inbox")
class PostgresInboxIT {

    @RegisterExtension
    static final PostgresExtension postgres = new PostgresExtension();

    private static final AtomicInteger tables = new AtomicInteger();
    private static final String CONSUMER = "shipping.order-placed";

    private final ManualClock clock = ManualClock.startingAtEpochOf2024();
    private String inboxTable;
    private String stateTable;
    private PostgresInbox inbox;
    private ExecutorService pool;

    @BeforeEach
    void createTables() {
        int n = tables.incrementAndGet();
        inboxTable = postgres.schema() + ".inbox_" + n;
        stateTable = postgres.schema() + ".state_" + n;
        inbox = PostgresInbox.create(
                postgres.dataSource(),
                PostgresInboxConfig.builder().tableName(inboxTable).build(),
                clock);
        inbox.ensureSchema();
        postgres.fixture().execute("CREATE TABLE " + stateTable + " (id int PRIMARY KEY, effects int NOT NULL)");
        postgres.fixture().execute("INSERT INTO " + stateTable + " VALUES (1, 0)");
        pool = Executors.newFixedThreadPool(8);
    }

    @AfterEach
    void dropTables() throws InterruptedException {
        pool.shutdownNow();
        pool.awaitTermination(10, TimeUnit.SECONDS);
        postgres.fixture().execute("DROP TABLE IF EXISTS " + inboxTable + ", " + stateTable);
    }

    /** The consumer's effect: one more on the counter, written through the inbox's connection. */
    private InboxWork<Connection, SQLException> increment() {
        return connection -> {
            try (Statement statement = connection.createStatement()) {
                statement.executeUpdate("UPDATE " + stateTable + " SET effects = effects + 1 WHERE id = 1");
            }
        };
    }

    private int effects() {
        try (Connection connection = postgres.dataSource().getConnection();
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT effects FROM " + stateTable + " WHERE id = 1")) {
            rows.next();
            return rows.getInt(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private long records() {
        try (Connection connection = postgres.dataSource().getConnection();
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT count(*) FROM " + inboxTable)) {
            rows.next();
            return rows.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    @DisplayName("the same message delivered 100 times in a row changes the consumer's state exactly once")
    void sequentialDuplicates() throws SQLException {
        List<InboxResult> results = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            results.add(inbox.process(CONSUMER, "m-1", increment()));
        }

        assertThat(effects()).isEqualTo(1);
        assertThat(results.get(0)).isEqualTo(InboxResult.PROCESSED);
        assertThat(results.subList(1, 100)).containsOnly(InboxResult.DUPLICATE);
        assertThat(inbox.isProcessed(CONSUMER, "m-1")).isTrue();
        assertThat(records()).isEqualTo(1);
    }

    @Test
    @DisplayName("the same message delivered 100 times from 8 threads at once changes the state exactly once, "
            + "without errors")
    void concurrentDuplicates() throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        List<Future<InboxResult>> futures = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            futures.add(pool.submit(() -> {
                start.await();
                return inbox.process(CONSUMER, "m-1", increment());
            }));
        }
        start.countDown();
        List<InboxResult> results = new ArrayList<>();
        for (Future<InboxResult> future : futures) {
            results.add(future.get(60, TimeUnit.SECONDS)); // an error or deadlock would surface here
        }

        assertThat(effects()).isEqualTo(1);
        assertThat(results).filteredOn(InboxResult::processed).hasSize(1);
        assertThat(results)
                .filteredOn(result -> result == InboxResult.DUPLICATE)
                .hasSize(99);
    }

    @Test
    @DisplayName("duplicates arriving while the first delivery is still working block on the key, then see duplicate")
    void waitersSeeDuplicateAfterCommit() throws Exception {
        CountDownLatch firstWorking = new CountDownLatch(1);
        CountDownLatch releaseFirst = new CountDownLatch(1);
        Future<InboxResult> first = pool.submit(() -> inbox.process(CONSUMER, "m-1", connection -> {
            increment().execute(connection);
            firstWorking.countDown();
            block(releaseFirst);
        }));
        firstWorking.await();
        List<Future<InboxResult>> duplicates = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            duplicates.add(pool.submit(() -> inbox.process(CONSUMER, "m-1", increment())));
        }
        awaitBackendsWaitingOnLocks(7);
        releaseFirst.countDown();

        assertThat(first.get(30, TimeUnit.SECONDS)).isEqualTo(InboxResult.PROCESSED);
        for (Future<InboxResult> duplicate : duplicates) {
            assertThat(duplicate.get(30, TimeUnit.SECONDS)).isEqualTo(InboxResult.DUPLICATE);
        }
        assertThat(effects()).isEqualTo(1);
    }

    @Test
    @DisplayName("when the first delivery fails while duplicates wait, exactly one waiter runs the work")
    void waiterTakesOverAfterRollback() throws Exception {
        CountDownLatch firstWorking = new CountDownLatch(1);
        CountDownLatch releaseFirst = new CountDownLatch(1);
        Future<InboxResult> first = pool.submit(() -> inbox.process(CONSUMER, "m-1", connection -> {
            increment().execute(connection);
            firstWorking.countDown();
            block(releaseFirst);
            throw new IllegalStateException("the handler failed after its update");
        }));
        firstWorking.await();
        List<Future<InboxResult>> duplicates = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            duplicates.add(pool.submit(() -> inbox.process(CONSUMER, "m-1", increment())));
        }
        awaitBackendsWaitingOnLocks(7);
        releaseFirst.countDown();

        assertThatThrownBy(() -> first.get(30, TimeUnit.SECONDS)).hasCauseInstanceOf(IllegalStateException.class);
        List<InboxResult> results = new ArrayList<>();
        for (Future<InboxResult> duplicate : duplicates) {
            results.add(duplicate.get(30, TimeUnit.SECONDS));
        }
        assertThat(results).filteredOn(InboxResult::processed).hasSize(1);
        assertThat(effects()).isEqualTo(1);
    }

    @Test
    @DisplayName("a failing work rolls back its effect and records nothing, its SQLException reaches the caller; "
            + "the redelivery runs it")
    void failureRollsBackEffectAndRecord() throws SQLException {
        assertThatThrownBy(() -> inbox.process(CONSUMER, "m-1", connection -> {
                    increment().execute(connection);
                    try (Statement statement = connection.createStatement()) {
                        statement.execute("SELECT * FROM no_such_table_in_any_schema");
                    }
                }))
                .isInstanceOf(SQLException.class)
                .hasMessageContaining("no_such_table_in_any_schema");

        assertThat(effects()).isZero();
        assertThat(inbox.isProcessed(CONSUMER, "m-1")).isFalse();

        assertThat(inbox.process(CONSUMER, "m-1", increment())).isEqualTo(InboxResult.PROCESSED);
        assertThat(effects()).isEqualTo(1);
    }

    @Test
    @DisplayName("each consumer name processes the same message once for itself")
    void consumersAreIndependent() throws SQLException {
        inbox.process("shipping", "m-1", increment());
        inbox.process("billing", "m-1", increment());
        inbox.process("billing", "m-1", increment());

        assertThat(effects()).isEqualTo(2);
    }

    @Test
    @DisplayName("claim records the message in the caller's own transaction; its rollback forgets it")
    void claimInCallersTransaction() throws SQLException {
        try (Connection connection = postgres.dataSource().getConnection()) {
            connection.setAutoCommit(false);
            assertThat(inbox.claim(connection, CONSUMER, "m-1")).isTrue();
            increment().execute(connection);
            connection.rollback();
            assertThat(inbox.isProcessed(CONSUMER, "m-1")).isFalse();

            assertThat(inbox.claim(connection, CONSUMER, "m-1")).isTrue();
            increment().execute(connection);
            connection.commit();
            assertThat(inbox.claim(connection, CONSUMER, "m-1")).isFalse();
            connection.rollback();
            connection.setAutoCommit(true);
        }
        assertThat(effects()).isEqualTo(1);
    }

    @Test
    @DisplayName("processed_at comes from the injected clock")
    void processedAtFromClock() throws SQLException {
        inbox.process(CONSUMER, "m-1", increment());

        try (Connection connection = postgres.dataSource().getConnection();
                PreparedStatement select = connection.prepareStatement(
                        "SELECT processed_at FROM " + inboxTable + " WHERE message_id = ?")) {
            select.setString(1, "m-1");
            try (ResultSet rows = select.executeQuery()) {
                rows.next();
                assertThat(rows.getTimestamp(1).toInstant()).isEqualTo(clock.instant());
            }
        }
    }

    @Test
    @DisplayName("cleanup deletes records older than the window in bounded chunks, oldest first; a duplicate "
            + "arriving after the window is not caught (the documented caveat)")
    void cleanupWindow() throws SQLException {
        for (int i = 0; i < 5; i++) {
            inbox.process(CONSUMER, "old-" + i, increment());
            clock.advance(Duration.ofMinutes(1));
        }
        clock.advance(Duration.ofDays(20));
        inbox.process(CONSUMER, "recent", increment());

        assertThat(inbox.cleanUp(clock.instant().minus(Duration.ofDays(14)), 2)).isEqualTo(2);
        assertThat(inbox.isProcessed(CONSUMER, "old-0")).isFalse();
        assertThat(inbox.isProcessed(CONSUMER, "old-1")).isFalse();
        assertThat(inbox.isProcessed(CONSUMER, "old-2")).isTrue();

        InboxCleaner cleaner = new InboxCleaner(inbox, new InboxCleanerConfig(Duration.ofDays(14), 2, 10), clock);
        assertThat(cleaner.runOnce()).isEqualTo(3);
        assertThat(records()).isEqualTo(1);
        assertThat(inbox.isProcessed(CONSUMER, "recent")).isTrue();

        assertThat(inbox.process(CONSUMER, "old-0", increment())).isEqualTo(InboxResult.PROCESSED);
        assertThat(effects()).isEqualTo(7);
    }

    @Test
    @DisplayName("a missing table is an OutboxStoreException that says how to create it")
    void missingTable() {
        PostgresInbox missing = PostgresInbox.create(
                postgres.dataSource(),
                PostgresInboxConfig.builder()
                        .tableName(postgres.schema() + ".never_created")
                        .build(),
                clock);

        assertThatThrownBy(() -> missing.process(CONSUMER, "m-1", increment()))
                .isInstanceOf(OutboxStoreException.class)
                .hasMessageContaining("never_created")
                .hasMessageContaining("ensureSchema()");
        assertThat(effects()).isZero();
    }

    private void awaitBackendsWaitingOnLocks(int expected) {
        await().atMost(Duration.ofSeconds(30)).until(() -> waitingOnLocks() >= expected);
    }

    /** Backends of this test's inbox inserts that wait for a lock (the first delivery's key). */
    private int waitingOnLocks() throws SQLException {
        try (Connection connection = postgres.fixture().openConnection();
                PreparedStatement select = connection.prepareStatement(
                        "SELECT count(*) FROM pg_stat_activity " + "WHERE wait_event_type = 'Lock' AND query LIKE ?")) {
            select.setString(1, "%\"" + inboxTable.replace(".", "\".\"") + "\"%");
            try (ResultSet rows = select.executeQuery()) {
                rows.next();
                return rows.getInt(1);
            }
        }
    }

    private static void block(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
