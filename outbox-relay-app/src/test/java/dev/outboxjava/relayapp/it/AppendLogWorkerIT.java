package dev.outboxjava.relayapp.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.postgres.OutboxWriter;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.postgres.StoreLayout;
import dev.outboxjava.testkit.fixture.BrokerInbox;
import dev.outboxjava.testkit.fixture.ChildJvm;
import dev.outboxjava.testkit.postgres.PostgresFixture;
import dev.outboxjava.testkit.rabbitmq.RabbitMqDestination;
import dev.outboxjava.testkit.rabbitmq.RabbitMqFixture;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The standalone worker with {@code outbox.store.layout=append_log}, as OS processes against the real
 * PostgreSQL and RabbitMQ: {@code schema --apply} creates the append-only layout's tables, the
 * worker delivers what producers appended to it (warning that, with its cleaner off, nobody creates the
 * log's partitions ahead unless another worker does), and {@code status} reads it back.
 */
@DisplayName("The worker on the append-only layout")
class AppendLogWorkerIT {

    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(60);

    @Test
    @DisplayName("schema --apply creates the layout, run delivers every event, status counts them as sent")
    void theWorkerRelaysAnAppendLogTable(@TempDir Path dir) throws Exception {
        PostgresFixture postgres = PostgresFixture.shared();
        String schema = postgres.newSchema();
        String table = schema + ".outbox_events";
        try (RabbitMqFixture rabbit = RabbitMqFixture.start()) {
            RabbitMqDestination destination = rabbit.createDestination("append-log-worker-it");
            Path config = dir.resolve("outbox.properties");
            Files.writeString(
                    config,
                    "outbox.db.url=" + postgres.jdbcUrl() + "\noutbox.db.user=" + postgres.user()
                            + "\noutbox.db.password=" + postgres.password() + "\noutbox.table=" + table
                            + "\noutbox.store.layout=append_log\n");
            try (BrokerInbox inbox = BrokerInbox.amqp(rabbit.connectionFactory(), destination.queue())) {
                WorkerJar.Result applied = WorkerJar.run(
                        "append-log-schema",
                        environment(),
                        COMMAND_TIMEOUT,
                        "schema",
                        "--apply",
                        "--config",
                        config.toString());
                assertThat(applied.exitCode()).as(applied.output()).isZero();
                assertThat(applied.output()).contains("outbox.store.layout=append_log");
                assertThat(tables(postgres, schema))
                        .contains(
                                "outbox_events", "outbox_events_state", "outbox_events_sent", "outbox_events_position");

                List<String> ids = append(postgres, table, 40, destination.exchange());

                Map<String, String> env = environment();
                env.put("OUTBOX_BROKER", "rabbitmq");
                env.put("OUTBOX_RABBITMQ_URI", rabbit.uri());
                env.put("OUTBOX_HTTP_PORT", "0");
                env.put("OUTBOX_CLEANER_ENABLED", "false");
                try (ChildJvm worker = WorkerJar.start("append-log-run", env, "run", "--config", config.toString())) {
                    await().atMost(Duration.ofMinutes(2))
                            .untilAsserted(() -> assertThat(inbox.ids())
                                    .as("worker log:\n%s", worker.output())
                                    .containsAll(ids));
                    WorkerJar.Result status = WorkerJar.run(
                            "append-log-status",
                            environment(),
                            COMMAND_TIMEOUT,
                            "status",
                            "--config",
                            config.toString());
                    assertThat(status.exitCode()).as(status.output()).isZero();
                    assertThat(status.output())
                            .containsPattern("(?m)^pending\\s+0\\s*$")
                            .containsPattern("(?m)^sent\\s+40\\s*$");
                    // the relay went through the append-only layout: sent records appended, the log's rows kept
                    // as appended (it has no state column to change)
                    assertThat(count(postgres, "SELECT count(*) FROM " + table + "_sent"))
                            .isEqualTo(40);
                    assertThat(count(postgres, "SELECT count(*) FROM " + table)).isEqualTo(40);
                    assertThat(count(
                                    postgres,
                                    "SELECT count(*) FROM pg_attribute WHERE attrelid = '" + table
                                            + "'::regclass AND attname IN ('status', 'sent_at') AND NOT attisdropped"))
                            .isZero();
                    assertThat(worker.output())
                            .as("the cleaner off: the log's structure is nobody's job unless another worker cleans")
                            .contains("outbox.cleaner.enabled=false", "overflow partition");
                    worker.terminate();
                    worker.waitFor(Duration.ofSeconds(30));
                }
            } finally {
                rabbit.delete(destination);
            }
        } finally {
            postgres.dropSchema(schema);
        }
    }

    private static Map<String, String> environment() {
        Map<String, String> env = new HashMap<>();
        env.put("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
        return env;
    }

    private static List<String> tables(PostgresFixture postgres, String schema) throws Exception {
        List<String> names = new ArrayList<>();
        try (Connection connection = postgres.dataSource().getConnection();
                Statement statement = connection.createStatement();
                ResultSet rows =
                        statement.executeQuery("SELECT tablename FROM pg_tables WHERE schemaname = '" + schema + "'")) {
            while (rows.next()) {
                names.add(rows.getString(1));
            }
        }
        return names;
    }

    private static long count(PostgresFixture postgres, String sql) throws Exception {
        try (Connection connection = postgres.dataSource().getConnection();
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(sql)) {
            rows.next();
            return rows.getLong(1);
        }
    }

    /** Appends {@code count} events in one transaction, as a producer of the append-only layout does. */
    private static List<String> append(PostgresFixture postgres, String table, int count, String exchange)
            throws Exception {
        PostgresOutboxStore store = PostgresOutboxStore.create(
                postgres.dataSource(),
                PostgresOutboxConfig.builder()
                        .tableName(table)
                        .layout(StoreLayout.APPEND_LOG)
                        .build());
        OutboxWriter writer = store.writer();
        List<OutboxEvent> events = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            events.add(OutboxEvent.builder()
                    .type("order.placed")
                    .destination(exchange)
                    .key("order-" + (i % 5))
                    .routingKey("orders.placed")
                    .payload(("{\"order\":" + i + "}").getBytes(StandardCharsets.UTF_8))
                    .build());
        }
        List<String> ids = new ArrayList<>();
        try (Connection connection = postgres.dataSource().getConnection()) {
            connection.setAutoCommit(false);
            writer.append(connection, events)
                    .forEach(event -> ids.add(event.id().toString()));
            connection.commit();
        }
        return ids;
    }
}
