package dev.outboxjava.examples.demo;

import com.rabbitmq.client.ConnectionFactory;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outboxjava.examples.shipping.RabbitMqEventStream;
import dev.outboxjava.relayapp.BrokerKind;
import dev.outboxjava.testkit.fixture.LocalPort;
import dev.outboxjava.testkit.fixture.ServiceConfig;
import dev.outboxjava.testkit.kafka.EmbeddedKafkaBroker;
import dev.outboxjava.testkit.kafka.KafkaTopics;
import dev.outboxjava.testkit.rabbitmq.RabbitMqFixture;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The services the demo runs against: a PostgreSQL database (embedded unless {@code --db-url}) with
 * a schema of its own, and a broker (Kafka in-process unless {@code --kafka}; RabbitMQ from
 * {@code --rabbitmq-uri}, else a local one on 127.0.0.1:5672, else an embedded Apache Qpid; the
 * testkit's {@code OUTBOX_TEST_SKIP_LOCAL=true} skips the local one).
 * Everything it created is removed by {@link #close()}.
 */
final class DemoEnvironment implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(DemoEnvironment.class);
    static final String DESTINATION = "orders";
    static final int KAFKA_PARTITIONS = 3;

    private final Deque<AutoCloseable> cleanUp = new ConcurrentLinkedDeque<>();
    private final String suffix =
            UUID.randomUUID().toString().replace("-", "").substring(0, 8).toLowerCase(Locale.ROOT);
    private final BrokerKind broker;
    private String jdbcUrl;
    private String dbUser;
    private String dbPassword;
    private String schema;
    private HikariDataSource dataSource;
    private String destination;
    private String queue;
    private String kafkaBootstrapServers = "";
    private String rabbitMqUri = "";
    private ConnectionFactory rabbitMqFactory;

    private DemoEnvironment(BrokerKind broker) {
        this.broker = broker;
    }

    /** Starts or finds the database and the broker, printing where each came from and how long it took. */
    static DemoEnvironment start(DemoConfig options, PrintStream out) {
        DemoEnvironment environment = new DemoEnvironment(options.broker());
        // Both start at once: on a small machine each takes seconds.
        CompletableFuture<Void> broker = CompletableFuture.runAsync(() -> {
            if (options.broker() == BrokerKind.KAFKA) {
                environment.startKafka(options, out);
            } else {
                environment.startRabbitMq(options, out);
            }
        });
        try {
            environment.startDatabase(options, out);
            broker.join();
            return environment;
        } catch (RuntimeException e) {
            try {
                broker.join();
            } catch (RuntimeException brokerFailure) {
                e.addSuppressed(brokerFailure);
            }
            environment.close();
            throw e instanceof CompletionException && e.getCause() instanceof RuntimeException cause ? cause : e;
        }
    }

    private void startDatabase(DemoConfig options, PrintStream out) {
        long started = System.nanoTime();
        String origin;
        if (options.dbUrl().isPresent()) {
            jdbcUrl = options.dbUrl().get();
            dbUser = options.dbUser();
            dbPassword = options.dbPassword();
            origin = "PostgreSQL at " + jdbcUrl;
        } else {
            EmbeddedPostgres postgres;
            try {
                postgres = EmbeddedPostgres.builder().start();
            } catch (IOException e) {
                throw new UncheckedIOException(
                        "could not start an embedded PostgreSQL (pass --db-url to use " + "another one): "
                                + e.getMessage(),
                        e);
            }
            cleanUp.push(postgres);
            jdbcUrl = postgres.getJdbcUrl("postgres", "postgres");
            dbUser = "postgres";
            dbPassword = "postgres";
            origin = "embedded PostgreSQL (io.zonky.test) on port " + postgres.getPort();
        }
        schema = "outbox_demo_" + suffix;
        try (Connection connection = DriverManager.getConnection(jdbcUrl, dbUser, dbPassword);
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA " + schema);
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "cannot create schema " + schema + " in " + jdbcUrl + " (check --db-url, "
                            + "--db-user, --db-password): " + e.getMessage(),
                    e);
        }
        cleanUp.push(this::dropSchema);
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        config.setUsername(dbUser);
        config.setPassword(dbPassword);
        config.setSchema(schema);
        config.setMaximumPoolSize(options.threads() + 4);
        config.setPoolName("outbox-demo");
        dataSource = new HikariDataSource(config);
        cleanUp.push(dataSource);
        out.printf("database: %s, schema %s (ready in %s)%n", origin, schema, Progress.seconds(started));
    }

    private void startKafka(DemoConfig options, PrintStream out) {
        long started = System.nanoTime();
        String origin;
        if (options.kafka().isPresent()) {
            kafkaBootstrapServers = options.kafka().get();
            origin = "Kafka at " + kafkaBootstrapServers;
        } else {
            EmbeddedKafkaBroker kafka = EmbeddedKafkaBroker.start();
            cleanUp.push(kafka);
            kafkaBootstrapServers = kafka.bootstrapServers();
            origin = "in-process Kafka (KRaft) at " + kafkaBootstrapServers;
        }
        destination = DESTINATION + "." + suffix;
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafkaBootstrapServers))) {
            KafkaTopics.createAndAwaitReady(
                    admin,
                    destination,
                    KAFKA_PARTITIONS,
                    Duration.ofSeconds(30),
                    kafkaBootstrapServers + " (check --kafka)");
        }
        String topic = destination;
        String servers = kafkaBootstrapServers;
        cleanUp.push(() -> deleteTopic(servers, topic));
        out.printf(
                "broker:   %s, topic %s with %d partitions (ready in %s)%n",
                origin, destination, KAFKA_PARTITIONS, Progress.seconds(started));
    }

    private void startRabbitMq(DemoConfig options, PrintStream out) {
        long started = System.nanoTime();
        String origin;
        if (options.rabbitMqUri().isPresent()) {
            rabbitMqUri = options.rabbitMqUri().get();
            rabbitMqFactory = new ConnectionFactory();
            try {
                rabbitMqFactory.setUri(rabbitMqUri);
            } catch (Exception e) {
                throw new IllegalArgumentException("--rabbitmq-uri is not a usable AMQP URI: " + e.getMessage(), e);
            }
            origin = "RabbitMQ at " + rabbitMqFactory.getHost() + ":" + rabbitMqFactory.getPort();
        } else if (!ServiceConfig.isTrue(ServiceConfig.SKIP_LOCAL)
                && LocalPort.isOpen(RabbitMqFixture.LOCAL_HOST, RabbitMqFixture.LOCAL_PORT, 500)) {
            rabbitMqUri =
                    "amqp://guest:guest@" + RabbitMqFixture.LOCAL_HOST + ":" + RabbitMqFixture.LOCAL_PORT + "/%2F";
            rabbitMqFactory = new ConnectionFactory();
            rabbitMqFactory.setHost(RabbitMqFixture.LOCAL_HOST);
            rabbitMqFactory.setPort(RabbitMqFixture.LOCAL_PORT);
            origin = "local RabbitMQ at " + RabbitMqFixture.LOCAL_HOST + ":" + RabbitMqFixture.LOCAL_PORT;
        } else {
            // Nothing local: the testkit's fixture starts an embedded Apache Qpid Broker-J.
            RabbitMqFixture fixture = RabbitMqFixture.start();
            cleanUp.push(fixture);
            rabbitMqUri = fixture.uri();
            rabbitMqFactory = fixture.connectionFactory();
            origin = switch (fixture.origin()) {
                case EMBEDDED -> "embedded Apache Qpid Broker-J (AMQP 0-9-1) on port " + fixture.port();
                case LOCAL -> "local RabbitMQ at " + fixture.host() + ":" + fixture.port();
                default ->
                    fixture.origin().name().toLowerCase(Locale.ROOT) + " broker at " + fixture.host() + ":"
                            + fixture.port();
            };
        }
        rabbitMqFactory.setAutomaticRecoveryEnabled(false);
        destination = DESTINATION + "." + suffix;
        queue = "shipping." + suffix;
        RabbitMqEventStream.declareQueue(rabbitMqFactory, destination, queue, "order.#");
        ConnectionFactory factory = rabbitMqFactory;
        String exchange = destination;
        String queueName = queue;
        cleanUp.push(() -> RabbitMqEventStream.deleteQueue(factory, exchange, queueName));
        out.printf(
                "broker:   %s, exchange %s -> queue %s (ready in %s)%n",
                origin, destination, queue, Progress.seconds(started));
    }

    BrokerKind broker() {
        return broker;
    }

    String jdbcUrl() {
        return jdbcUrl;
    }

    String dbUser() {
        return dbUser;
    }

    String dbPassword() {
        return dbPassword;
    }

    /** The demo's own schema: every table of the run lives here. */
    String schema() {
        return schema;
    }

    /** A pool whose connections work in {@link #schema()}. */
    HikariDataSource dataSource() {
        return dataSource;
    }

    /** The Kafka topic or RabbitMQ exchange of the order events. */
    String destination() {
        return destination;
    }

    /** The RabbitMQ queue the shipping consumer reads (RabbitMQ only). */
    String queue() {
        return queue;
    }

    String kafkaBootstrapServers() {
        return kafkaBootstrapServers;
    }

    String rabbitMqUri() {
        return rabbitMqUri;
    }

    ConnectionFactory rabbitMqFactory() {
        return rabbitMqFactory;
    }

    /** A suffix unique to this run (consumer group, connection names). */
    String suffix() {
        return suffix;
    }

    private void dropSchema() {
        try (Connection connection = DriverManager.getConnection(jdbcUrl, dbUser, dbPassword);
                Statement statement = connection.createStatement()) {
            statement.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        } catch (SQLException e) {
            log.warn("could not drop the demo schema {}: {}", schema, e.getMessage());
        }
    }

    private static void deleteTopic(String servers, String topic) {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, servers))) {
            admin.deleteTopics(List.of(topic)).all().get(10, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            log.warn("could not delete topic {}: {}", topic, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Removes what the run created and stops what it started, newest first. */
    @Override
    public void close() {
        while (!cleanUp.isEmpty()) {
            try {
                cleanUp.pop().close();
            } catch (Exception e) {
                log.warn("clean-up step failed: {}", e.toString());
            }
        }
    }
}
