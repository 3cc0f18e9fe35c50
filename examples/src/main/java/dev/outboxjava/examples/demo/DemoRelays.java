package dev.outboxjava.examples.demo;

import dev.outboxjava.relayapp.BrokerKind;
import dev.outboxjava.testkit.fixture.ChildJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The demo's relays: each a {@link RelayProcess} in a child JVM ({@link ChildJvm}) with this JVM's class
 * path, numbered, with its output in a log file of its own. Killed at the latest when the demo exits.
 */
final class DemoRelays implements AutoCloseable {

    /**
     * How long a killed relay's events stay in flight before the next relay's sweeper reclaims them.
     * It must exceed the longest a live relay may hold a batch (publish timeout 5 s, plus the core's
     * 5 s grace for a publisher that overruns it, plus the marks), or a slow but living relay loses
     * its leases and its batch is published twice.
     */
    static final int LEASE_TIMEOUT_SECONDS = 15;

    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);

    private final Map<String, String> settings;
    private final Path logDirectory;
    private final List<ChildJvm> started = new CopyOnWriteArrayList<>();
    // Ctrl-C on the demo must not leave relay processes behind.
    private final Thread killOnExit = new Thread(this::killAll, "relay-launcher-exit");

    /**
     * @param settings     the worker settings, as environment variables ({@code OUTBOX_DB_URL}, ...)
     * @param logDirectory where each relay's output goes
     */
    DemoRelays(Map<String, String> settings, Path logDirectory) {
        this.settings = Map.copyOf(settings);
        this.logDirectory = Objects.requireNonNull(logDirectory, "logDirectory");
        Runtime.getRuntime().addShutdownHook(killOnExit);
    }

    /** Kills every relay still running. */
    @Override
    public void close() {
        killAll();
        try {
            Runtime.getRuntime().removeShutdownHook(killOnExit);
        } catch (IllegalStateException e) {
            // the JVM is exiting already
        }
    }

    private void killAll() {
        started.forEach(ChildJvm::close);
    }

    /** A running relay process. */
    static final class Relay {
        private final int number;
        private final ChildJvm jvm;

        private Relay(int number, ChildJvm jvm) {
            this.number = number;
            this.jvm = jvm;
        }

        int number() {
            return number;
        }

        long pid() {
            return jvm.pid();
        }

        Path log() {
            return jvm.log().orElseThrow();
        }

        boolean isAlive() {
            return jvm.isAlive();
        }

        /** The last lines of the relay's output (to explain an unexpected exit). */
        String logTail(int lines) {
            return jvm.outputTail(lines);
        }

        /** SIGKILL: no shutdown hook, no graceful drain; whatever it had leased stays in flight. */
        void kill() {
            jvm.kill();
        }

        /** SIGTERM: the worker finishes its batch within its shutdown bound and exits. */
        int stop() {
            return jvm.stop(STOP_TIMEOUT);
        }
    }

    /** Starts relay number {@code number}. */
    Relay start(int number) {
        // C1 only: a relay is I/O-bound, and its JVM starts noticeably faster on a busy machine.
        // The worker rejects unknown OUTBOX_ variables: the child has only the demo's own.
        ChildJvm jvm = ChildJvm.mainClass(RelayProcess.class.getName())
                .jvmOptions("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1")
                .inheritEnvironment()
                .environment(settings)
                .logTo(logDirectory.resolve("relay-" + number + ".log"))
                .start("relay-" + number);
        started.add(jvm);
        return new Relay(number, jvm);
    }

    /** The settings of the demo's relays, as environment variables. */
    static Map<String, String> settings(DemoEnvironment environment) {
        return settings(
                environment.jdbcUrl(),
                environment.dbUser(),
                environment.dbPassword(),
                environment.schema(),
                environment.broker(),
                environment.kafkaBootstrapServers(),
                environment.rabbitMqUri(),
                "outbox-demo-relay-" + environment.suffix());
    }

    /** As {@link #settings(DemoEnvironment)}; an empty Kafka or AMQP address is left unset. */
    static Map<String, String> settings(
            String jdbcUrl,
            String user,
            String password,
            String schema,
            BrokerKind broker,
            String kafkaBootstrapServers,
            String rabbitMqUri,
            String connectionName) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("OUTBOX_DB_URL", jdbcUrl + (jdbcUrl.contains("?") ? "&" : "?") + "currentSchema=" + schema);
        env.put("OUTBOX_DB_USER", user);
        env.put("OUTBOX_DB_PASSWORD", password);
        env.put("OUTBOX_TABLE", schema + ".outbox_events");
        env.put("OUTBOX_DB_POOL_SIZE", "6");
        env.put("OUTBOX_BROKER", broker.configValue());
        if (!kafkaBootstrapServers.isEmpty()) {
            env.put("OUTBOX_KAFKA_BOOTSTRAP_SERVERS", kafkaBootstrapServers);
            env.put("OUTBOX_KAFKA_CLIENT_ID", connectionName);
        }
        if (!rabbitMqUri.isEmpty()) {
            env.put("OUTBOX_RABBITMQ_URI", rabbitMqUri);
            env.put("OUTBOX_RABBITMQ_CONNECTION_NAME", connectionName);
        }
        env.put("OUTBOX_RELAY_THREADS", "2");
        env.put("OUTBOX_RELAY_BATCH_SIZE", "250");
        env.put("OUTBOX_RELAY_POLL_INTERVAL", "100ms");
        env.put("OUTBOX_RELAY_PUBLISH_TIMEOUT", "5s");
        // A killed relay's leases are reclaimed after 15 s instead of the default 2 min.
        env.put("OUTBOX_SWEEPER_LEASE_TIMEOUT", LEASE_TIMEOUT_SECONDS + "s");
        env.put("OUTBOX_SWEEPER_INTERVAL", "1s");
        env.put("OUTBOX_CLEANER_ENABLED", "false");
        env.put("OUTBOX_HTTP_PORT", "0");
        env.put("OUTBOX_METRICS_POLL_INTERVAL", "5s");
        return env;
    }
}
