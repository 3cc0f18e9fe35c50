package dev.outboxjava.benchmarks.internal;

import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outboxjava.benchmarks.BenchmarkConfig;
import dev.outboxjava.testkit.kafka.EmbeddedKafkaBroker;
import dev.outboxjava.testkit.kafka.KafkaTopics;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * The real services one benchmark run uses, each isolated from other users of the same servers:
 * a schema of its own in PostgreSQL (dropped at the end), a KRaft broker of the run's own (in a JVM
 * of its own by default, see {@link KafkaBrokerProcess}), and RabbitMQ
 * exchanges/queues with a random suffix (deleted at the end) over a connection named
 * {@code outbox-benchmarks-…}. Database sessions are named {@code outbox-benchmarks-<run>-<pool>}. A
 * JVM that exits before {@link #close()} (Ctrl-C) still cleans up, from a shutdown hook.
 */
public final class Services implements AutoCloseable {

    private static final Duration POOL_FILL_LIMIT = Duration.ofSeconds(30);

    private static final String DROP_LOCK_TIMEOUT = "30s";
    private static volatile boolean cleaningUpOnExit;
    private final String jdbcUrl;
    private final String rabbitHost;
    private final String schema = "outbox_bench_" + UUID.randomUUID().toString().substring(0, 8);
    private final String runId = schema.substring("outbox_bench_".length());
    private final AtomicInteger tables = new AtomicInteger();
    private final HikariDataSource pool;
    private final List<String> rabbitDeclared = new ArrayList<>();
    private final Path kafkaLogParent;
    private final boolean kafkaInProcess;
    private EmbeddedKafkaBroker kafkaInThisJvm;
    private KafkaBrokerProcess kafkaInItsJvm;
    /** Cleans up when the JVM exits before {@link #close()} (Ctrl-C): a full run leaves 10 M rows otherwise. */
    private final Thread cleanUpOnExit = new Thread(this::closeOnExit, "outbox-bench-clean-up");

    private boolean closed;
    private Connection rabbitAdmin;

    /**
     * @param kafkaLogParent where the broker's log directory goes (see {@link #kafkaLogParent(String)})
     * @param kafkaInProcess whether the broker runs in this JVM rather than in a JVM of its own ({@link KafkaBrokerProcess})
     */
    public Services(String jdbcUrl, String rabbitHost, Path kafkaLogParent, boolean kafkaInProcess) {
        this.jdbcUrl = jdbcUrl;
        this.rabbitHost = rabbitHost;
        this.kafkaLogParent = kafkaLogParent;
        this.kafkaInProcess = kafkaInProcess;
        this.pool = newPool("outbox-bench", 24);
        execute("CREATE SCHEMA " + schema);
        Runtime.getRuntime().addShutdownHook(cleanUpOnExit);
    }

    /** Whether a run is being cleaned up because the JVM exits before its end (its statements then fail). */
    public static boolean cleaningUpOnExit() {
        return cleaningUpOnExit;
    }

    /** A new pool on the benchmark database (auto-commit connections) that opens them as they are asked for. */
    public HikariDataSource newPool(String name, int size) {
        HikariConfig config = poolConfig(name, size);
        config.setMinimumIdle(1);
        return new HikariDataSource(config);
    }

    /**
     * A new pool of {@code size} connections, all open when this returns: HikariCP's default, and what a
     * service's pool is (Spring Boot's among them) by the time it takes traffic. A pool that opens its
     * connections under load makes every caller after a commit — the notifier, the relay's first leases
     * and marks — queue behind the producers for sessions that are opened one at a time, and that queue,
     * not the relay, would be the first interval's tail.
     */
    public HikariDataSource newOpenedPool(String name, int size) {
        HikariDataSource pool = new HikariDataSource(poolConfig(name, size));
        long deadline = System.nanoTime() + POOL_FILL_LIMIT.toNanos();
        while (pool.getHikariPoolMXBean().getTotalConnections() < size) {
            if (System.nanoTime() > deadline) {
                pool.close();
                throw new IllegalStateException("pool " + name + " did not open its " + size + " connections within "
                        + POOL_FILL_LIMIT.toSeconds() + " s (max_connections of the database too low?)");
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                pool.close();
                throw new IllegalStateException("interrupted", e);
            }
        }
        return pool;
    }

    private HikariConfig poolConfig(String name, int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        config.setUsername("postgres");
        config.setPassword("");
        config.setMaximumPoolSize(size);
        config.setPoolName(name);
        config.addDataSourceProperty("ApplicationName", applicationNamePrefix() + name);
        return config;
    }

    /** What this run's database sessions' {@code application_name} starts with. */
    private String applicationNamePrefix() {
        return "outbox-benchmarks-" + runId + "-";
    }

    /** The benchmark database's JDBC URL (user postgres), for the relay JVMs of scenario 8. */
    public String jdbcUrl() {
        return jdbcUrl;
    }

    /** The shared pool. */
    public HikariDataSource dataSource() {
        return pool;
    }

    public String schema() {
        return schema;
    }

    /** A new, unused, schema-qualified table name. */
    public String newTableName(String prefix) {
        return schema + "." + prefix + "_" + tables.incrementAndGet();
    }

    /** Runs SQL outside a transaction (VACUUM, DDL). */
    public void execute(String sql) {
        try (java.sql.Connection connection = pool.getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "benchmark SQL failed: " + sql.lines().findFirst().orElse(sql) + ": " + e.getMessage(), e);
        }
    }

    /**
     * Where the benchmark's Kafka broker keeps its log: {@code configured} when set, else {@code /dev/shm} (a
     * memory file system) when it has {@link BenchmarkConfig#MEMORY_LOG_MIN_FREE_GIB} GiB free, else
     * the temporary directory. In memory, because here the broker shares one disk with PostgreSQL:
     * its log — about 3 GB over a full run, written back by the kernel — slows the database's WAL
     * flushes, so every drain after the first broker traffic would measure the shared disk as well
     * as the relay. In production the broker has disks of its own. It still shares the CPU here.
     */
    public static Path kafkaLogParent(String configured) {
        if (!configured.isBlank()) {
            return Path.of(configured);
        }
        Path memory = Path.of("/dev/shm");
        try {
            if (Files.isDirectory(memory)
                    && Files.isWritable(memory)
                    && Files.getFileStore(memory).getUsableSpace()
                            >= BenchmarkConfig.MEMORY_LOG_MIN_FREE_GIB * (1L << 30)) {
                return memory;
            }
        } catch (IOException e) {
            // not usable: the temporary directory below
        }
        return Path.of(System.getProperty("java.io.tmpdir"));
    }

    /** The Kafka broker's bootstrap address; the broker starts on first use, in this JVM or its own. */
    public synchronized String kafkaBootstrapServers() {
        Map<String, String> settings = Map.of("log.flush.interval.messages", "9223372036854775807");
        if (kafkaInProcess) {
            if (kafkaInThisJvm == null) {
                kafkaInThisJvm = EmbeddedKafkaBroker.start(kafkaLogParent, settings);
                CpuBreakdown.kafkaBrokerInThisJvm();
            }
            return kafkaInThisJvm.bootstrapServers();
        }
        if (kafkaInItsJvm == null) {
            kafkaInItsJvm = KafkaBrokerProcess.start(kafkaLogParent, settings);
            CpuBreakdown.watchProcess(kafkaInItsJvm.pid(), CpuBreakdown.KAFKA_BROKER_JVM);
        }
        return kafkaInItsJvm.bootstrapServers();
    }

    /** Creates a Kafka topic {@code bench-<prefix>-<run>} and returns its name. */
    public String newTopic(String prefix, int partitions) {
        String topic = "bench-" + prefix + "-" + runId;
        String bootstrap = kafkaBootstrapServers();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            KafkaTopics.createAndAwaitReady(admin, topic, partitions, Duration.ofSeconds(30), bootstrap);
        }
        return topic;
    }

    public String rabbitHost() {
        return rabbitHost;
    }

    /** A connection factory for the local RabbitMQ (guest/guest). */
    public ConnectionFactory rabbitFactory() {
        ConnectionFactory factory = new ConnectionFactory();
        factory.setHost(rabbitHost);
        factory.setPort(5672);
        factory.setUsername("guest");
        factory.setPassword("guest");
        return factory;
    }

    /**
     * Declares a topic exchange and a durable queue bound with {@code #}; the queue keeps only its
     * newest 10,000 messages (drop-head), so a 200,000-event drain cannot fill the shared broker's memory.
     *
     * @return the exchange name
     */
    public synchronized String newExchange(String prefix) {
        String name = "outbox-bench." + prefix + "." + runId;
        try {
            if (rabbitAdmin == null) {
                rabbitAdmin = rabbitFactory().newConnection("outbox-benchmarks-admin-" + runId);
            }
            try (Channel channel = rabbitAdmin.createChannel()) {
                channel.exchangeDeclare(name, BuiltinExchangeType.TOPIC, true, false, null);
                channel.queueDeclare(
                        name, true, false, false, Map.of("x-max-length", 10_000, "x-overflow", "drop-head"));
                channel.queueBind(name, name, "#");
            }
        } catch (Exception e) {
            throw new IllegalStateException(
                    "cannot declare RabbitMQ exchange/queue " + name + " on " + rabbitHost + ":5672: " + e.getMessage(),
                    e);
        }
        rabbitDeclared.add(name);
        return name;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            Runtime.getRuntime().removeShutdownHook(cleanUpOnExit);
        } catch (IllegalStateException shuttingDown) {
            // the JVM is exiting: the hook runs (this may be it) and finds this closed
        }
        if (rabbitAdmin != null) {
            try (Channel channel = rabbitAdmin.createChannel()) {
                for (String name : rabbitDeclared) {
                    channel.queueDelete(name);
                    channel.exchangeDelete(name);
                }
            } catch (Exception e) {
                System.err.println("could not delete RabbitMQ exchanges/queues " + rabbitDeclared + ": " + e);
            }
            try {
                rabbitAdmin.close();
            } catch (Exception ignored) {
                // closing anyway
            }
        }
        if (kafkaInThisJvm != null) {
            kafkaInThisJvm.close();
        }
        if (kafkaInItsJvm != null) {
            kafkaInItsJvm.close();
        }
        try {
            dropSchema();
        } finally {
            pool.close();
        }
    }

    /**
     * Drops the run's schema, waiting at most {@link #DROP_LOCK_TIMEOUT} for the locks of transactions
     * still running (after Ctrl-C the scenario's threads go on until the JVM halts).
     */
    private void dropSchema() {
        String drop = "DROP SCHEMA IF EXISTS " + schema + " CASCADE";
        try (java.sql.Connection connection = pool.getConnection();
                Statement statement = connection.createStatement()) {
            connection.setAutoCommit(false);
            statement.execute("SET LOCAL lock_timeout = '" + DROP_LOCK_TIMEOUT + "'");
            statement.execute(drop);
            connection.commit();
        } catch (SQLException e) {
            System.err.println("could not drop the benchmark's schema (" + e.getMessage() + "); drop it with: " + drop);
        }
    }

    private synchronized void closeOnExit() {
        if (closed) {
            return;
        }
        cleaningUpOnExit = true;
        System.err.println("exiting before the end: dropping schema " + schema
                + ", the run's RabbitMQ exchanges/queues and its Kafka broker");
        endOtherSessions();
        close();
    }

    /**
     * Ends this run's other database sessions: their threads go on until the JVM halts, and a
     * statement running there (scenario 6 loads 10 M rows in one) would hold locks the drop waits for.
     */
    private void endOtherSessions() {
        try (java.sql.Connection connection = pool.getConnection();
                PreparedStatement statement =
                        connection.prepareStatement("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                                + " WHERE starts_with(application_name, ?) AND pid <> pg_backend_pid()")) {
            statement.setString(1, applicationNamePrefix());
            statement.execute();
        } catch (SQLException e) {
            System.err.println("could not end the run's other database sessions: " + e.getMessage());
        }
    }
}
