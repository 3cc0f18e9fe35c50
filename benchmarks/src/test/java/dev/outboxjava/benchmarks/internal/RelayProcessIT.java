package dev.outboxjava.benchmarks.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.zaxxer.hikari.HikariDataSource;
import dev.outboxjava.benchmarks.BenchmarkConfig;
import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.postgres.OutboxWriter;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.postgres.StoreLayout;
import dev.outboxjava.postgres.WakeUpMode;
import dev.outboxjava.testkit.fixture.LocalPort;
import dev.outboxjava.testkit.kafka.EmbeddedKafkaBroker;
import dev.outboxjava.testkit.kafka.KafkaTopics;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.junit.jupiter.api.Test;

/**
 * Scenario 8's relay JVM drains the library's default layout and reports what it marked published: the
 * count the scenario measures with is the one the database holds.
 */
class RelayProcessIT {

    private static final int EVENTS = 3_000;

    @Test
    void aRelayJvmDrainsTheDefaultLayoutAndReportsTheEventsItMarkedPublished() throws Exception {
        assumeTrue(LocalPort.isOpen("127.0.0.1", 5432, 1_000), "no PostgreSQL on 127.0.0.1:5432");
        PostgresOutboxConfig config = PostgresOutboxConfig.builder()
                .tableName("relay_process_it_" + UUID.randomUUID().toString().substring(0, 8))
                .wakeUpMode(WakeUpMode.NONE)
                .build();
        assertThat(config.layout()).isEqualTo(StoreLayout.APPEND_LOG);
        try (EmbeddedKafkaBroker kafka = EmbeddedKafkaBroker.start();
                HikariDataSource pool = new HikariDataSource()) {
            pool.setJdbcUrl(BenchmarkConfig.DEFAULT_JDBC_URL);
            pool.setUsername("postgres");
            String topic = "relay-process-it";
            try (Admin admin =
                    Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()))) {
                KafkaTopics.createAndAwaitReady(admin, topic, 1, Duration.ofSeconds(30), kafka.bootstrapServers());
            }
            PostgresOutboxStore.create(pool, config).ensureSchema();
            try {
                append(pool, config, topic);
                try (RelayProcess relay = RelayProcess.start(new RelayProcess.Settings(
                        BenchmarkConfig.DEFAULT_JDBC_URL,
                        config.tableName(),
                        Ordering.none(),
                        config.layout(),
                        kafka.bootstrapServers(),
                        topic,
                        1,
                        500,
                        Map.of()))) {
                    assertThat(relay.published()).as("before go").isZero();
                    relay.go();
                    await().atMost(Duration.ofSeconds(90)).until(() -> relay.published() == EVENTS);
                }
                assertThat(count(pool, "SELECT count(*) FROM " + config.tableName() + "_sent"))
                        .as("events the database holds as sent")
                        .isEqualTo(EVENTS);
            } finally {
                try (Connection connection = pool.getConnection();
                        Statement statement = connection.createStatement()) {
                    statement.execute(OutboxTables.dropStatement(config));
                }
            }
        }
    }

    private static void append(HikariDataSource pool, PostgresOutboxConfig config, String topic) throws Exception {
        List<OutboxEvent> events = new ArrayList<>();
        for (int i = 0; i < EVENTS; i++) {
            events.add(OutboxEvent.builder()
                    .type("bench.event")
                    .key("key-" + (i % 100))
                    .destination(topic)
                    .payload(new byte[] {(byte) i})
                    .build());
        }
        try (Connection connection = pool.getConnection()) {
            connection.setAutoCommit(false);
            OutboxWriter.create(config).append(connection, events);
            connection.commit();
        }
    }

    private static long count(HikariDataSource pool, String sql) throws Exception {
        try (Connection connection = pool.getConnection();
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
