package dev.outboxjava.examples.demo;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Starts {@link RelayProcess} as a child JVM with this JVM's class path, and kills or stops it.
 * Each child writes its output to its own log file.
 */
final class RelayLauncher {

    private final Map<String, String> settings;
    private final Path logDirectory;

    /**
     * @param settings     the worker settings, as environment variables ({@code OUTBOX_DB_URL}, ...)
     * @param logDirectory where each relay's output goes
     */
    RelayLauncher(Map<String, String> settings, Path logDirectory) {
        this.settings = Map.copyOf(settings);
        this.logDirectory = Objects.requireNonNull(logDirectory, "logDirectory");
    }

    /** A running relay process. */
    static final class Relay {
        private final int number;
        private final Process process;
        private final Path log;

        private Relay(int number, Process process, Path log) {
            this.number = number;
            this.process = process;
            this.log = log;
        }

        int number() {
            return number;
        }

        long pid() {
            return process.pid();
        }

        Path log() {
            return log;
        }

        boolean isAlive() {
            return process.isAlive();
        }

        /** SIGKILL: no shutdown hook, no graceful drain; whatever it had leased stays in flight. */
        void kill() {
            process.destroyForcibly();
            await(10);
        }

        /** SIGTERM: the worker finishes its batch within its shutdown bound and exits. */
        int stop() {
            process.destroy();
            if (!await(30)) {
                process.destroyForcibly();
                await(10);
            }
            return process.isAlive() ? -1 : process.exitValue();
        }

        private boolean await(int seconds) {
            try {
                return process.waitFor(seconds, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
    }

    /** Starts relay number {@code number}. */
    Relay start(int number) {
        Path log = logDirectory.resolve("relay-" + number + ".log");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder builder = new ProcessBuilder(java, "-Xmx256m", "-XX:+UseSerialGC",
                "-cp", System.getProperty("java.class.path"), RelayProcess.class.getName())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        Map<String, String> environment = builder.environment();
        // The worker rejects unknown OUTBOX_ variables: pass only the demo's own.
        environment.keySet().removeIf(name -> name.startsWith("OUTBOX_"));
        environment.putAll(settings);
        try {
            return new Relay(number, builder.start(), log);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start a relay process with " + java + " (class path from "
                    + "java.class.path" + File.pathSeparator + "...): " + e.getMessage(), e);
        }
    }

    /** The settings of the demo's relays, as environment variables. */
    static Map<String, String> settings(DemoEnvironment environment) {
        Map<String, String> env = new LinkedHashMap<>();
        String url = environment.jdbcUrl();
        env.put("OUTBOX_DB_URL", url + (url.contains("?") ? "&" : "?") + "currentSchema=" + environment.schema());
        env.put("OUTBOX_DB_USER", environment.dbUser());
        env.put("OUTBOX_DB_PASSWORD", environment.dbPassword());
        env.put("OUTBOX_DB_SCHEMA", environment.schema());
        env.put("OUTBOX_DB_POOL_SIZE", "6");
        env.put("OUTBOX_BROKER", environment.broker().configValue());
        if (!environment.kafkaBootstrapServers().isEmpty()) {
            env.put("OUTBOX_KAFKA_BOOTSTRAP_SERVERS", environment.kafkaBootstrapServers());
        }
        if (!environment.rabbitMqUri().isEmpty()) {
            env.put("OUTBOX_RABBITMQ_URI", environment.rabbitMqUri());
            env.put("OUTBOX_RABBITMQ_CONNECTION_NAME", "outbox-demo-relay-" + environment.suffix());
        }
        env.put("OUTBOX_RELAY_THREADS", "2");
        env.put("OUTBOX_RELAY_BATCH_SIZE", "250");
        env.put("OUTBOX_RELAY_POLL_INTERVAL", "100ms");
        env.put("OUTBOX_RELAY_PUBLISH_TIMEOUT", "3s");
        // A killed relay's leases are reclaimed after 5 s instead of the default 2 min.
        env.put("OUTBOX_SWEEPER_LEASE_TIMEOUT", "5s");
        env.put("OUTBOX_SWEEPER_INTERVAL", "1s");
        env.put("OUTBOX_CLEANER_ENABLED", "false");
        env.put("OUTBOX_HTTP_PORT", "0");
        env.put("OUTBOX_METRICS_POLL_INTERVAL", "5s");
        return env;
    }
}
