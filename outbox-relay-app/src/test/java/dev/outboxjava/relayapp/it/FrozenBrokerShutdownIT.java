package dev.outboxjava.relayapp.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.testkit.fixture.BrokerInbox;
import dev.outboxjava.testkit.fixture.ChildJvm;
import dev.outboxjava.testkit.kafka.EmbeddedKafkaBroker;
import dev.outboxjava.testkit.postgres.PostgresFixture;
import dev.outboxjava.testkit.rabbitmq.RabbitMqDestination;
import dev.outboxjava.testkit.rabbitmq.RabbitMqFixture;
import dev.outboxjava.worker.testsupport.OutboxTable;
import dev.outboxjava.worker.testsupport.TcpProxy;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SIGTERM to the standalone worker while its broker is frozen: the broker keeps the TCP connections
 * open but never answers (a proxy in front of it stops forwarding, for this worker only). The process
 * must exit within the shutdown timeout plus 2 s, give the unanswered batches back to pending without
 * spending an attempt, and never call them lost leases.
 */
@DisplayName("The standalone worker, SIGTERMed while its broker is frozen")
class FrozenBrokerShutdownIT {

    private static final Logger log = LoggerFactory.getLogger(FrozenBrokerShutdownIT.class);
    private static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(3);
    /** The promise: exit within the shutdown timeout plus this, whatever the broker does. */
    private static final Duration PROMISED_GRACE = Duration.ofSeconds(2);

    private static PostgresFixture postgres;

    @BeforeAll
    static void services() {
        postgres = PostgresFixture.shared();
    }

    private static Map<String, String> environment(OutboxTable table) {
        Map<String, String> env = new HashMap<>();
        env.put("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
        env.put("OUTBOX_DB_URL", postgres.jdbcUrl());
        env.put("OUTBOX_DB_USER", postgres.user());
        env.put("OUTBOX_DB_PASSWORD", postgres.password());
        env.put("OUTBOX_TABLE", table.name);
        env.put("OUTBOX_RELAY_BATCH_SIZE", "100");
        // far longer than the test: only the shutdown can end the wait for the frozen broker
        env.put("OUTBOX_RELAY_PUBLISH_TIMEOUT", "60s");
        env.put("OUTBOX_SWEEPER_LEASE_TIMEOUT", "120s");
        env.put("OUTBOX_SHUTDOWN_TIMEOUT", SHUTDOWN_TIMEOUT.toSeconds() + "s");
        env.put("OUTBOX_HTTP_PORT", "0");
        return env;
    }

    @Test
    @DisplayName(
            "RabbitMQ: exits within the shutdown timeout + 2 s, releases its batches untried, reports no lost lease")
    void rabbitMq() throws Exception {
        RabbitMqFixture rabbit = RabbitMqFixture.start();
        RabbitMqDestination destination = rabbit.createDestination("frozen-shutdown");
        try (OutboxTable table = new OutboxTable(postgres);
                BrokerInbox inbox = BrokerInbox.amqp(rabbit.connectionFactory(), destination.queue());
                TcpProxy proxy = new TcpProxy(rabbit.host(), rabbit.port())) {
            table.append(3000, destination.exchange(), "order.placed");
            Map<String, String> env = environment(table);
            env.put("OUTBOX_BROKER", "rabbitmq");
            env.put(
                    "OUTBOX_RABBITMQ_URI",
                    "amqp://" + rabbit.username() + ":" + rabbit.password() + "@"
                            + rabbit.host() + ":" + proxy.port() + "/"
                            + URLEncoder.encode(rabbit.virtualHost(), StandardCharsets.UTF_8));
            env.put(
                    "OUTBOX_RABBITMQ_CONNECTION_NAME",
                    "frozen-shutdown-" + UUID.randomUUID().toString().substring(0, 8));
            try (ChildJvm worker = WorkerJar.start("frozen-rabbitmq", env, "run")) {
                await().atMost(Duration.ofMinutes(2)).until(() -> inbox.ids().size() >= 200 || !worker.isAlive());
                assertThat(worker.isAlive()).as(worker.output()).isTrue();

                proxy.freeze();
                table.append(500, destination.exchange(), "order.placed"); // work for the frozen broker
                shutDownWhileFrozen(worker, table);
            } finally {
                proxy.thaw();
            }
        } finally {
            rabbit.delete(destination);
            rabbit.close();
        }
    }

    @Test
    @DisplayName("Kafka: exits within the shutdown timeout + 2 s, releases its batches untried, reports no lost lease")
    void kafka() throws Exception {
        int proxyPort = freePort();
        // the broker advertises the proxy, so that every connection of the worker goes through it
        try (EmbeddedKafkaBroker kafka = EmbeddedKafkaBroker.start(
                        Map.of("advertised.listeners", "PLAINTEXT://127.0.0.1:" + proxyPort));
                TcpProxy proxy = new TcpProxy(proxyPort, "127.0.0.1", port(kafka.bootstrapServers()));
                OutboxTable table = new OutboxTable(postgres)) {
            String topic = "frozen-shutdown-" + UUID.randomUUID().toString().substring(0, 8);
            kafka.createTopic(topic, 3);
            table.append(3000, topic, "order.placed");
            Map<String, String> env = environment(table);
            env.put("OUTBOX_BROKER", "kafka");
            env.put("OUTBOX_KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:" + proxyPort);
            try (ChildJvm worker = WorkerJar.start("frozen-kafka", env, "run")) {
                await().atMost(Duration.ofMinutes(2))
                        .until(() -> table.count(EventStatus.SENT) >= 200 || !worker.isAlive());
                assertThat(worker.isAlive()).as(worker.output()).isTrue();

                proxy.freeze();
                table.append(500, topic, "order.placed"); // work for the frozen broker
                shutDownWhileFrozen(worker, table);
            } finally {
                proxy.thaw();
            }
        }
    }

    private void shutDownWhileFrozen(ChildJvm worker, OutboxTable table) throws Exception {
        // batches handed to the frozen broker stay in flight: nothing gets marked any more
        // confirms the broker sent before the freeze may still be marked: wait for the count to settle
        AtomicLong sent = new AtomicLong(-1);
        await().pollInterval(Duration.ofSeconds(2))
                .atMost(Duration.ofSeconds(30))
                .until(() -> sent.getAndSet(table.count(EventStatus.SENT)) == sent.get()
                        && table.count(EventStatus.IN_FLIGHT) > 0);
        long inFlight = table.count(EventStatus.IN_FLIGHT);

        long sigterm = System.nanoTime();
        worker.terminate();
        worker.waitFor(Duration.ofSeconds(90));
        Duration exit = Duration.ofNanos(System.nanoTime() - sigterm);
        log.info(
                "SIGTERM with {} events in flight to a frozen broker: exit after {} ms; worker log:\n{}",
                inFlight,
                exit.toMillis(),
                worker.output()
                        .lines()
                        .filter(line -> line.contains("outbox") || line.contains("WARN"))
                        .collect(Collectors.joining("\n")));

        assertThat(exit)
                .as("SIGTERM to exit; worker log:\n%s", worker.output())
                .isLessThanOrEqualTo(SHUTDOWN_TIMEOUT.plus(PROMISED_GRACE));
        assertThat(worker.output()).doesNotContain("lease lost");
        assertThat(table.count(EventStatus.IN_FLIGHT))
                .as("every unanswered batch released")
                .isZero();
        assertThat(table.count(EventStatus.FAILED)).isZero();
        assertThat(eventsWithAttempts(table))
                .as("no attempt spent on the frozen broker")
                .isZero();
        assertThat(worker.output())
                .contains("outbox worker stopped in")
                .as("the publisher closed within the budget it was given")
                .doesNotContain("the worker stops without waiting for it");
    }

    private static long eventsWithAttempts(OutboxTable table) throws SQLException {
        try (Connection connection = postgres.dataSource().getConnection();
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(
                        "SELECT count(*) FROM " + table.eventsRelation() + " WHERE attempts > 0")) {
            rows.next();
            return rows.getLong(1);
        }
    }

    private static int port(String bootstrapServers) {
        return Integer.parseInt(bootstrapServers.substring(bootstrapServers.lastIndexOf(':') + 1));
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
