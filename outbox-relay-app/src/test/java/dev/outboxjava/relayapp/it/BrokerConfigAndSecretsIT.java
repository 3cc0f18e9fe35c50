package dev.outboxjava.relayapp.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.testkit.fixture.BrokerInbox;
import dev.outboxjava.testkit.fixture.ChildJvm;
import dev.outboxjava.testkit.fixture.SelfSignedCertificate;
import dev.outboxjava.testkit.kafka.EmbeddedKafkaBroker;
import dev.outboxjava.testkit.kafka.KafkaIdCollector;
import dev.outboxjava.testkit.postgres.PostgresFixture;
import dev.outboxjava.testkit.rabbitmq.RabbitMqDestination;
import dev.outboxjava.testkit.rabbitmq.RabbitMqFixture;
import dev.outboxjava.worker.testsupport.OutboxTable;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The standalone jar configured only by environment variables: every broker client setting reaches
 * the client (Kafka over TLS against an in-process broker with a certificate made by the test;
 * RabbitMQ credentials, heartbeat and client properties), and no secret given to it shows up in
 * anything it prints: logs at debug level, {@code config}, {@code status}, and its error messages.
 */
@DisplayName("Broker client settings and secrets in the standalone worker")
class BrokerConfigAndSecretsIT {

    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(60);

    /** One secret for every password the worker is given; it must never be printed. */
    private final String secret = "S3cr3t-" + UUID.randomUUID().toString().substring(0, 12);

    private PostgresFixture postgres;
    private OutboxTable table;
    private String role;

    @BeforeEach
    void tableAndRole() throws Exception {
        postgres = PostgresFixture.shared();
        table = new OutboxTable(postgres);
        // a role of its own whose password is the secret, so the worker logs in with it whatever the server's auth
        role = "outbox_secret_" + UUID.randomUUID().toString().substring(0, 8);
        try (Connection connection = postgres.dataSource().getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE ROLE " + role + " LOGIN PASSWORD '" + secret + "'");
            // the relay of the append-only layout creates, truncates and drops partitions: it owns the tables
            statement.execute("GRANT USAGE, CREATE ON SCHEMA " + table.schema + " TO " + role);
            statement.execute(
                    "DO $$ DECLARE r record; BEGIN FOR r IN SELECT oid::regclass AS rel, relkind FROM pg_class"
                            + " WHERE relnamespace = '" + table.schema
                            + "'::regnamespace AND relkind IN ('r', 'p', 'v') LOOP"
                            + " EXECUTE format('ALTER %s %s OWNER TO " + role + "',"
                            + " CASE WHEN r.relkind = 'v' THEN 'VIEW' ELSE 'TABLE' END, r.rel); END LOOP; END $$");
        }
    }

    @AfterEach
    void dropTableAndRole() throws Exception {
        table.close();
        try (Connection connection = postgres.dataSource().getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("DROP OWNED BY " + role);
            statement.execute("DROP ROLE " + role);
        }
    }

    private Map<String, String> databaseEnvironment() {
        Map<String, String> env = new HashMap<>();
        env.put("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
        String url = postgres.jdbcUrl();
        env.put("OUTBOX_DB_URL", url + (url.contains("?") ? "&" : "?") + "user=" + role + "&password=" + secret);
        env.put("OUTBOX_DB_USER", role);
        env.put("OUTBOX_DB_PASSWORD", secret);
        env.put("OUTBOX_TABLE", table.name);
        env.put("OUTBOX_HTTP_PORT", "0");
        env.put("OUTBOX_LOG_LEVEL", "debug");
        return env;
    }

    @Test
    @DisplayName(
            "Kafka over TLS with producer properties from OUTBOX_KAFKA_*: delivered, and the secret printed nowhere")
    void kafkaOverTls(@TempDir Path dir) throws Exception {
        SelfSignedCertificate certificate = SelfSignedCertificate.create(dir, secret);
        try (EmbeddedKafkaBroker kafka = EmbeddedKafkaBroker.startWithSsl(new EmbeddedKafkaBroker.SslListener(
                certificate.keyStore(), secret, SelfSignedCertificate.STORE_TYPE))) {
            String topic = "tls-it-" + UUID.randomUUID().toString().substring(0, 8);
            kafka.createTopic(topic, 1);
            List<UUID> ids = table.append(50, topic, "order.placed");

            Map<String, String> env = databaseEnvironment();
            env.put("OUTBOX_BROKER", "kafka");
            env.put("OUTBOX_KAFKA_BOOTSTRAP_SERVERS", kafka.sslBootstrapServers());
            env.put("OUTBOX_KAFKA_SECURITY_PROTOCOL", "SSL");
            env.put(
                    "OUTBOX_KAFKA_SSL_TRUSTSTORE_LOCATION",
                    certificate.trustStore().toString());
            env.put("OUTBOX_KAFKA_SSL_TRUSTSTORE_PASSWORD", secret);
            env.put("OUTBOX_KAFKA_SSL_TRUSTSTORE_TYPE", SelfSignedCertificate.STORE_TYPE);
            env.put("OUTBOX_KAFKA_MAX_BLOCK_MS", "4000");
            // not used over plain SSL, but a JAAS configuration must be masked wherever it is printed
            env.put(
                    "OUTBOX_KAFKA_SASL_JAAS_CONFIG",
                    "org.apache.kafka.common.security.plain.PlainLoginModule "
                            + "required username=\"relay\" password=\"" + secret + "\";");

            StringBuilder printed = new StringBuilder();
            WorkerJar.Result config = WorkerJar.run("secrets-config", env, COMMAND_TIMEOUT, "config");
            printed.append(config.output());
            assertThat(config.exitCode()).as(config.output()).isZero();
            assertThat(config.output())
                    .contains("outbox.kafka.max.block.ms", "4000")
                    .containsPattern("outbox.kafka.ssl.truststore.password\\s+\\*\\*\\*")
                    .containsPattern("outbox.db.password\\s+\\*\\*\\*");

            try (KafkaIdCollector received = KafkaIdCollector.start(kafka.bootstrapServers(), topic);
                    ChildJvm worker = WorkerJar.start("secrets-kafka-tls", env, "run")) {
                Set<String> expected = ids.stream().map(UUID::toString).collect(Collectors.toSet());
                await().atMost(Duration.ofMinutes(2))
                        .untilAsserted(() -> assertThat(received.ids())
                                .as("worker log:\n%s", worker.output())
                                .containsAll(expected));
                await().atMost(Duration.ofSeconds(60)).until(() -> table.count(EventStatus.SENT) == 50);
                worker.terminate();
                worker.waitFor(Duration.ofSeconds(30));
                printed.append(worker.output());
                assertThat(worker.output()).contains("relaying " + table.name).contains("(SSL)");
            }

            WorkerJar.Result status = WorkerJar.run("secrets-status", env, COMMAND_TIMEOUT, "status");
            printed.append(status.output());
            assertThat(status.output()).contains("sent");

            Map<String, String> unsafe = new HashMap<>(env);
            unsafe.put("OUTBOX_KAFKA_ENABLE_IDEMPOTENCE", "false");
            unsafe.put("OUTBOX_KAFKA_VALUE_SERIALIZER", "org.apache.kafka.common.serialization.StringSerializer");
            WorkerJar.Result refused = WorkerJar.run("secrets-refused", unsafe, COMMAND_TIMEOUT, "run");
            printed.append(refused.output());
            assertThat(refused.exitCode()).as(refused.output()).isEqualTo(2);
            assertThat(refused.output()).contains("outbox.kafka.value.serializer (OUTBOX_KAFKA_VALUE_SERIALIZER)");

            Map<String, String> down = new HashMap<>(env);
            down.put("OUTBOX_DB_URL", "jdbc:postgresql://127.0.0.1:" + closedPort() + "/test?password=" + secret);
            WorkerJar.Result unreachable = WorkerJar.run("secrets-down", down, COMMAND_TIMEOUT, "status");
            printed.append(unreachable.output());
            assertThat(unreachable.exitCode()).as(unreachable.output()).isEqualTo(3);
            assertThat(unreachable.output()).contains("password=***");

            assertThat(printed.toString()).as("everything the worker printed").doesNotContain(secret);
        }
    }

    @Test
    @DisplayName("RabbitMQ credentials, heartbeat and client properties from OUTBOX_RABBITMQ_* reach the connection")
    void rabbitMqConnectionSettings() throws Exception {
        try (RabbitMqFixture rabbit = RabbitMqFixture.start()) {
            RabbitMqDestination destination = rabbit.createDestination("rabbit-settings-it");
            try (BrokerInbox inbox = BrokerInbox.amqp(rabbit.connectionFactory(), destination.queue())) {
                List<UUID> ids = table.append(20, destination.exchange(), "order.placed");
                Map<String, String> env = databaseEnvironment();
                env.put("OUTBOX_BROKER", "rabbitmq");
                // the URI's credentials and virtual host are wrong: only the separate settings make the login work
                env.put(
                        "OUTBOX_RABBITMQ_URI",
                        "amqp://nobody:" + secret + "@" + rabbit.host() + ":" + rabbit.port() + "/no-such-vhost");
                env.put("OUTBOX_RABBITMQ_USERNAME", rabbit.username());
                env.put("OUTBOX_RABBITMQ_PASSWORD", rabbit.password());
                env.put("OUTBOX_RABBITMQ_VIRTUAL_HOST", rabbit.virtualHost());
                env.put("OUTBOX_RABBITMQ_CONNECTION_HEARTBEAT", "7");
                env.put("OUTBOX_RABBITMQ_CLIENT_PROPERTIES_DEPLOYMENT", "settings-it");
                String connectionName =
                        "outbox-settings-it-" + UUID.randomUUID().toString().substring(0, 8);
                env.put("OUTBOX_RABBITMQ_CONNECTION_NAME", connectionName);
                try (ChildJvm worker = WorkerJar.start("rabbit-settings", env, "run")) {
                    await().atMost(Duration.ofMinutes(2))
                            .untilAsserted(() -> assertThat(inbox.ids())
                                    .as("worker log:\n%s", worker.output())
                                    .containsAll(
                                            ids.stream().map(UUID::toString).toList()));
                    brokerView(connectionName)
                            .ifPresent(line -> assertThat(line)
                                    .as(
                                            "the broker's view of the connection: heartbeat 7 s and the extra client property")
                                    .contains("\"deployment\",\"settings-it\"")
                                    .endsWith("\t7"));
                    worker.terminate();
                    worker.waitFor(Duration.ofSeconds(30));
                    assertThat(worker.output()).doesNotContain(secret);
                }

                Map<String, String> typo = new HashMap<>(env);
                typo.put("OUTBOX_RABBITMQ_CONECTION_HEARTBEAT", "7");
                typo.put("OUTBOX_RABBITMQ_TOPOLOGY_RECOVERY_ENABLED", "true");
                WorkerJar.Result refused = WorkerJar.run("rabbit-refused", typo, COMMAND_TIMEOUT, "run");
                assertThat(refused.exitCode()).as(refused.output()).isEqualTo(2);
                assertThat(refused.output())
                        .contains("OUTBOX_RABBITMQ_CONECTION_HEARTBEAT")
                        .doesNotContain(secret);
            } finally {
                rabbit.delete(destination);
            }
        }
    }

    /**
     * The local broker's line for the connection ({@code rabbitmqctl list_connections client_properties
     * timeout}); empty when rabbitmqctl is not there (a broker elsewhere, or the embedded one).
     */
    private static java.util.Optional<String> brokerView(String connectionName) throws InterruptedException {
        try {
            Process process = new ProcessBuilder(
                            "rabbitmqctl", "-q", "list_connections", "client_properties", "timeout")
                    .redirectErrorStream(true)
                    .start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(30, java.util.concurrent.TimeUnit.SECONDS) || process.exitValue() != 0) {
                return java.util.Optional.empty();
            }
            return java.util.Optional.of(output.lines()
                    .filter(line -> line.contains("\"" + connectionName + "\""))
                    .findFirst()
                    .map(String::strip)
                    .orElseThrow(
                            () -> new AssertionError("no connection named " + connectionName + " in:\n" + output)));
        } catch (java.io.IOException e) {
            return java.util.Optional.empty();
        }
    }

    private static int closedPort() throws java.io.IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
