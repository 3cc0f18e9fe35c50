package dev.outboxjava.relayapp.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.postgres.OutboxWriter;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.TransactionalOutbox;
import dev.outboxjava.testkit.fixture.BrokerInbox;
import dev.outboxjava.testkit.postgres.PostgresFixture;
import dev.outboxjava.testkit.rabbitmq.RabbitMqDestination;
import dev.outboxjava.testkit.rabbitmq.RabbitMqFixture;
import dev.outboxjava.worker.testsupport.OutboxTable;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The settings of docs/poolers.md, against a real PgBouncer: applications append through a transaction
 * pool with {@code prepareThreshold=0}; the relay application connects through a session pool, where its
 * LISTEN connection keeps its server session and wake-ups arrive.
 */
@DisplayName("Through PgBouncer")
class PgBouncerIT {

    private static PostgresFixture postgres;
    private static RabbitMqFixture rabbit;
    private static PgBouncer bouncer;

    @BeforeAll
    static void services() throws IOException {
        postgres = PostgresFixture.shared();
        rabbit = RabbitMqFixture.start();
        // one server connection behind the transaction pool: every client's transactions share it
        bouncer = PgBouncer.start(postgres.jdbcUrl(), postgres.user(), 1);
    }

    @AfterAll
    static void stop() throws IOException {
        if (bouncer != null) {
            bouncer.close();
        }
        rabbit.close();
    }

    @Test
    @DisplayName(
            "given a transaction pool, when producers append with prepareThreshold=0, then every transaction commits")
    void transactionPoolWithPrepareThresholdZero() throws Exception {
        try (OutboxTable table = new OutboxTable(postgres);
                HikariDataSource application =
                        pool(bouncer.jdbcUrl(PgBouncer.TRANSACTION_POOL, "prepareThreshold=0"))) {
            int appended = alternate(application, table, 12);

            assertThat(appended).isEqualTo(24);
            assertThat(table.count(dev.outboxjava.core.EventStatus.PENDING)).isEqualTo(24);
        }
    }

    @Test
    @DisplayName(
            "given a transaction pool, when producers append with the driver's default, then server-prepared statements collide")
    void transactionPoolWithTheDriversDefault() throws Exception {
        try (OutboxTable table = new OutboxTable(postgres);
                HikariDataSource application = pool(bouncer.jdbcUrl(PgBouncer.TRANSACTION_POOL, ""))) {
            // pgjdbc server-prepares a statement from its 5th execution on a connection, under a name
            // (S_1, …) that the next client on the same server session also uses
            assertThatThrownBy(() -> alternate(application, table, 12)).hasStackTraceContaining("prepared statement");
        }
    }

    @Test
    @DisplayName(
            "given the relay on a session pool and producers on a transaction pool, then wake-ups arrive and every event is published")
    void relayOnASessionPool() throws Exception {
        RabbitMqDestination destination = rabbit.createDestination("pgbouncer-it");
        int port = freePort();
        Path output = Files.createTempFile("outbox-pgbouncer-it-", ".log");
        try (OutboxTable table = new OutboxTable(postgres);
                HikariDataSource application = pool(bouncer.jdbcUrl(PgBouncer.TRANSACTION_POOL, "prepareThreshold=0"));
                BrokerInbox inbox = BrokerInbox.amqp(rabbit.connectionFactory(), destination.queue())) {
            Map<String, String> env = Map.of(
                    "PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"),
                    "OUTBOX_DB_URL", bouncer.jdbcUrl(PgBouncer.SESSION_POOL, ""),
                    "OUTBOX_DB_USER", postgres.user(),
                    "OUTBOX_DB_PASSWORD", postgres.password(),
                    "OUTBOX_TABLE", table.name,
                    "OUTBOX_BROKER", "rabbitmq",
                    "OUTBOX_RABBITMQ_URI", rabbit.uri(),
                    "OUTBOX_HTTP_PORT", String.valueOf(port),
                    // no poll finds the events: only a wake-up does
                    "OUTBOX_RELAY_POLL_INTERVAL", "1h");
            ProcessBuilder builder = new ProcessBuilder(
                            Path.of(System.getProperty("java.home"), "bin", "java")
                                    .toString(),
                            "-jar",
                            WorkerJar.jar().toString(),
                            "run")
                    .redirectErrorStream(true)
                    .redirectOutput(output.toFile());
            builder.environment().clear();
            builder.environment().putAll(env);
            Process relay = builder.start();
            try {
                await().atMost(Duration.ofMinutes(2))
                        .pollInterval(Duration.ofMillis(250))
                        .untilAsserted(() -> {
                            assertThat(relay.isAlive())
                                    .as("relay alive; output:\n%s", Files.readString(output))
                                    .isTrue();
                            assertThat(status("http://127.0.0.1:" + port + "/health/ready"))
                                    .isEqualTo(200);
                        });

                TransactionalOutbox outbox = TransactionalOutbox.create(application, config(table));
                List<UUID> ids = new ArrayList<>();
                for (int i = 0; i < 10; i++) {
                    int order = i;
                    outbox.inTransaction(connection ->
                                    table.events(order, order + 1, destination.exchange(), "order.placed"))
                            .forEach(event -> ids.add(event.id()));
                }

                Set<String> expected = ids.stream().map(UUID::toString).collect(Collectors.toSet());
                await().atMost(Duration.ofMinutes(1))
                        .pollInterval(Duration.ofMillis(250))
                        .untilAsserted(() -> assertThat(inbox.ids())
                                .as("published; relay output:\n%s", Files.readString(output))
                                .containsAll(expected));
                outbox.notifier().ifPresent(dev.outboxjava.postgres.OutboxNotifier::close);
            } finally {
                relay.destroy();
                relay.waitFor();
                rabbit.delete(destination);
            }
        }
    }

    /** Appends one event per transaction, alternating between two client connections of the pool. */
    private static int alternate(HikariDataSource application, OutboxTable table, int rounds) throws SQLException {
        OutboxWriter writer = OutboxWriter.create(config(table));
        int appended = 0;
        try (Connection first = application.getConnection();
                Connection second = application.getConnection()) {
            first.setAutoCommit(false);
            second.setAutoCommit(false);
            for (int i = 0; i < rounds; i++) {
                for (Connection connection : List.of(first, second)) {
                    List<OutboxEvent> events = table.events(i, i + 1, "orders", "order.placed");
                    appended += writer.append(connection, events).size();
                    connection.commit();
                }
            }
        }
        return appended;
    }

    private static PostgresOutboxConfig config(OutboxTable table) {
        return PostgresOutboxConfig.builder().tableName(table.name).build();
    }

    private static HikariDataSource pool(String jdbcUrl) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        config.setUsername(postgres.user());
        config.setPassword(postgres.password());
        config.setMaximumPoolSize(2);
        config.setPoolName("pgbouncer-it");
        return new HikariDataSource(config);
    }

    private static int status(String url) {
        try {
            return HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(URI.create(url))
                                    .timeout(Duration.ofSeconds(5))
                                    .build(),
                            HttpResponse.BodyHandlers.discarding())
                    .statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
