package dev.outboxjava.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.outboxjava.core.time.ManualClock;
import dev.outboxjava.testkit.postgres.PostgresExtension;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The after-commit wake-up: producers signal, one background connection sends coalesced NOTIFYs. */
class OutboxNotifierIT {

    @RegisterExtension
    static final PostgresExtension postgres = new PostgresExtension();

    private final ManualClock clock = ManualClock.startingAtEpochOf2024();

    @Test
    @DisplayName("a signal reaches a listener on the channel; a burst of signals becomes a few notifications")
    void signalNotifiesAndCoalesces() {
        String channel = postgres.schema() + "_wake";
        AtomicInteger wakeUps = new AtomicInteger();
        try (OutboxNotificationListener listener = OutboxNotificationListener.builder(
                                postgres.dataSource(), channel, wakeUps::incrementAndGet)
                        .pollTimeout(Duration.ofMillis(100))
                        .start();
                OutboxNotifier notifier = OutboxNotifier.builder(postgres.dataSource(), channel)
                        .minimumInterval(Duration.ofMillis(20))
                        .start()) {
            await().atMost(Duration.ofSeconds(10)).until(listener::isListening);

            notifier.signal();
            await().atMost(Duration.ofSeconds(10)).until(() -> wakeUps.get() >= 1);

            long sentBefore = notifier.notificationsSent();
            for (int i = 0; i < 10_000; i++) {
                notifier.signal();
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> notifier.notificationsSent() > sentBefore);
            long burst = notifier.notificationsSent() - sentBefore;
            assertThat(burst).as("notifications for 10,000 signals").isBetween(1L, 1_000L);
        }
    }

    @Test
    @DisplayName("a signal that comes while the notifier waits out its interval is sent when the interval ends")
    void signalDuringIntervalIsSentAfterIt() {
        String channel = postgres.schema() + "_paced";
        AtomicInteger wakeUps = new AtomicInteger();
        Duration interval = Duration.ofMillis(500);
        try (OutboxNotificationListener listener = OutboxNotificationListener.builder(
                                postgres.dataSource(), channel, wakeUps::incrementAndGet)
                        .pollTimeout(Duration.ofMillis(100))
                        .start();
                OutboxNotifier notifier = OutboxNotifier.builder(postgres.dataSource(), channel)
                        .minimumInterval(interval)
                        .start()) {
            await().atMost(Duration.ofSeconds(10)).until(listener::isListening);
            notifier.signal();
            await().atMost(Duration.ofSeconds(10)).until(() -> notifier.notificationsSent() == 1);
            long firstSentAt = System.nanoTime();

            notifier.signal(); // within the interval: folded into the next notification, not dropped
            await().atMost(Duration.ofSeconds(10)).until(() -> notifier.notificationsSent() == 2);
            assertThat(Duration.ofNanos(System.nanoTime() - firstSentAt))
                    .as("time between the two notifications")
                    .isGreaterThanOrEqualTo(interval.minusMillis(150)); // awaitility polls every 100 ms
            await().atMost(Duration.ofSeconds(10)).until(() -> wakeUps.get() >= 2);
        }
    }

    @Test
    @DisplayName("TransactionalOutbox notifies after a commit, not after a rollback, and needs no trigger")
    void transactionalOutboxNotifiesAfterCommit() throws SQLException {
        PostgresOutboxConfig config = PostgresOutboxConfig.builder()
                .layout(StoreLayout.IN_PLACE)
                .tableName(postgres.schema() + ".outbox_events")
                .build();
        assertThat(config.wakeUpMode()).isEqualTo(WakeUpMode.NOTIFY_AFTER_COMMIT);
        PostgresSchema.apply(postgres.dataSource(), config);
        assertThat(triggers(config.tableName())).as("triggers on the table").isZero();
        AtomicInteger wakeUps = new AtomicInteger();
        try (OutboxNotificationListener listener = OutboxNotificationListener.builder(
                                postgres.dataSource(), config.notifyChannel(), wakeUps::incrementAndGet)
                        .pollTimeout(Duration.ofMillis(100))
                        .start();
                TransactionalOutbox outbox = TransactionalOutbox.create(postgres.dataSource(), config)) {
            await().atMost(Duration.ofSeconds(10)).until(listener::isListening);
            OutboxNotifier notifier = outbox.notifier().orElseThrow();

            assertThatThrownBy(() -> outbox.inTransaction(connection -> {
                        TestEvents.events(clock, 1);
                        throw new IllegalStateException("business rule broken");
                    }))
                    .hasMessage("business rule broken");
            outbox.inTransaction(connection -> List.of());
            assertThat(notifier.notificationsSent())
                    .as("after a rollback and an empty transaction")
                    .isZero();

            outbox.inTransaction(connection -> TestEvents.events(clock, 2));
            await().atMost(Duration.ofSeconds(10)).until(() -> wakeUps.get() >= 1);
            assertThat(notifier.notificationsSent()).isEqualTo(1);
        }
    }

    @Test
    @DisplayName("with the database unreachable a signal neither blocks nor throws, and notifying resumes after")
    void survivesOutage() {
        String channel = postgres.schema() + "_outage";
        FlakyDataSource flaky = new FlakyDataSource(postgres.dataSource());
        flaky.down.set(true);
        AtomicInteger wakeUps = new AtomicInteger();
        try (OutboxNotificationListener listener = OutboxNotificationListener.builder(
                                postgres.dataSource(), channel, wakeUps::incrementAndGet)
                        .pollTimeout(Duration.ofMillis(100))
                        .start();
                OutboxNotifier notifier = OutboxNotifier.builder(flaky, channel).start()) {
            await().atMost(Duration.ofSeconds(10)).until(listener::isListening);

            notifier.signal();
            await().atMost(Duration.ofSeconds(10)).until(() -> flaky.refused.get() >= 1);
            assertThat(notifier.notificationsSent()).isZero();

            flaky.down.set(false);
            notifier.signal();
            await().atMost(Duration.ofSeconds(20)).until(() -> wakeUps.get() >= 1);
            // the notifier counts a notification after pg_notify returned: the listener may be woken first
            await().atMost(Duration.ofSeconds(10)).until(() -> notifier.notificationsSent() > 0);
        }
    }

    private static long triggers(String table) throws SQLException {
        try (Connection connection = postgres.dataSource().getConnection();
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT count(*) FROM pg_trigger WHERE tgrelid = '" + table
                        + "'::regclass AND NOT tgisinternal")) {
            rows.next();
            return rows.getLong(1);
        }
    }

    /** A data source that refuses connections while {@link #down} is set. */
    private static final class FlakyDataSource extends ForwardingDataSource {
        final AtomicBoolean down = new AtomicBoolean();
        final AtomicInteger refused = new AtomicInteger();

        FlakyDataSource(DataSource delegate) {
            super(delegate);
        }

        @Override
        public Connection getConnection() throws SQLException {
            if (down.get()) {
                refused.incrementAndGet();
                throw new SQLException("connection refused (test outage)", "08001");
            }
            return super.getConnection();
        }
    }
}
