package dev.outboxjava.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outboxjava.core.time.ManualClock;
import dev.outboxjava.testkit.postgres.PostgresExtension;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The wake-up path: trigger → NOTIFY → listener → callback, and the listener's recovery when its
 * backend dies. The database is shared with other tests, so instead of restarting the server the
 * test terminates only the listener's own backend with {@code pg_terminate_backend}.
 */
class OutboxNotificationListenerIT {

    @RegisterExtension
    static final PostgresExtension postgres = new PostgresExtension();

    private final ManualClock clock = ManualClock.startingAtEpochOf2024();

    @Test
    @DisplayName("a committed append wakes the listener, also after its backend was terminated")
    void notifiesAndSurvivesBackendTermination() throws SQLException {
        PostgresOutboxConfig config = PostgresOutboxConfig.builder()
                .layout(StoreLayout.IN_PLACE)
                .tableName(postgres.schema() + ".outbox_events")
                .build();
        PostgresOutboxStore store = PostgresOutboxStore.create(postgres.dataSource(), config);
        store.ensureSchema();
        PGSimpleDataSource dedicated = new PGSimpleDataSource();
        dedicated.setUrl(postgres.fixture().jdbcUrl());
        dedicated.setUser(postgres.fixture().user());
        dedicated.setPassword(postgres.fixture().password());
        AtomicInteger wakeUps = new AtomicInteger();

        try (OutboxNotificationListener listener = OutboxNotificationListener.builder(
                        dedicated, config.notifyChannel(), wakeUps::incrementAndGet)
                .pollTimeout(Duration.ofMillis(200))
                .reconnectBackoff(Duration.ofMillis(50), Duration.ofSeconds(1))
                .start()) {
            await().atMost(Duration.ofSeconds(10)).until(listener::isListening);
            int before = wakeUps.get();

            store.transactional().inTransaction(connection -> TestEvents.events(clock, 3));
            await().atMost(Duration.ofSeconds(10)).until(() -> wakeUps.get() > before);

            int oldBackend = listenerBackends(config.notifyChannel()).get(0);
            assertThat(terminate(oldBackend)).isTrue();
            await().atMost(Duration.ofSeconds(20)).until(() -> {
                List<Integer> backends = listenerBackends(config.notifyChannel());
                return backends.size() == 1 && backends.get(0) != oldBackend && listener.isListening();
            });
            int afterReconnect = wakeUps.get();

            store.transactional().inTransaction(connection -> TestEvents.events(clock, 1));
            await().atMost(Duration.ofSeconds(10)).until(() -> wakeUps.get() > afterReconnect);
        }
        assertThat(listenerBackends(config.notifyChannel()))
                .as("closed listener released its connection")
                .isEmpty();
    }

    @Test
    @DisplayName("a listener on a pooled connection gives it back clean: no channel listened, name reset")
    void returnsPooledConnectionClean() throws SQLException {
        HikariConfig single = new HikariConfig();
        single.setJdbcUrl(postgres.fixture().jdbcUrl());
        single.setUsername(postgres.fixture().user());
        single.setPassword(postgres.fixture().password());
        single.setMaximumPoolSize(1);
        try (HikariDataSource pool = new HikariDataSource(single)) {
            OutboxNotificationListener listener = OutboxNotificationListener.builder(
                            pool, "outbox_listener_pool_test", () -> {})
                    .start();
            await().atMost(Duration.ofSeconds(10)).until(listener::isListening);
            listener.close();

            try (Connection connection = pool.getConnection();
                    ResultSet channels =
                            connection.createStatement().executeQuery("SELECT count(*) FROM pg_listening_channels()");
                    ResultSet name = connection.createStatement().executeQuery("SHOW application_name")) {
                channels.next();
                name.next();
                assertThat(channels.getInt(1)).as("channels still listened").isZero();
                assertThat(name.getString(1)).doesNotStartWith("outbox-listener");
            }
        }
    }

    private static List<Integer> listenerBackends(String channel) throws SQLException {
        try (Connection connection = postgres.dataSource().getConnection();
                PreparedStatement select =
                        connection.prepareStatement("SELECT pid FROM pg_stat_activity WHERE application_name = ?")) {
            select.setString(1, "outbox-listener:" + channel);
            List<Integer> pids = new ArrayList<>();
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    pids.add(rs.getInt(1));
                }
            }
            return pids;
        }
    }

    private static boolean terminate(int pid) throws SQLException {
        try (Connection connection = postgres.dataSource().getConnection();
                PreparedStatement kill = connection.prepareStatement("SELECT pg_terminate_backend(?)")) {
            kill.setInt(1, pid);
            try (ResultSet rs = kill.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }
}
