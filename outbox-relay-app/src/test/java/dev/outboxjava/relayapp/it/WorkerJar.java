package dev.outboxjava.relayapp.it;

import dev.outboxjava.testkit.fixture.ChildJvm;
import dev.outboxjava.worker.testsupport.WorkerFixture;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The shaded worker jar, started as a separate OS process ({@code java -jar ...}, a {@link ChildJvm}) with a
 * clean environment holding only the given {@code OUTBOX_*} settings. Its output goes to a log file under
 * {@code target/it-logs} so a failure can be read afterwards.
 */
final class WorkerJar {

    private WorkerJar() {}

    private static Path privateJar;

    /**
     * A private copy of the shaded jar built by {@code package} (Failsafe passes its path). Copied once
     * per test JVM and checked to be complete, because other builds in the same reactor may repackage
     * {@code target/*-all.jar} while these tests run.
     */
    static synchronized Path jar() {
        if (privateJar != null) {
            return privateJar;
        }
        String path = System.getProperty("outbox.worker.jar");
        if (path == null) {
            throw new IllegalStateException("system property outbox.worker.jar is not set: run the ITs with "
                    + "'mvn verify' (Failsafe sets it to target/outbox-worker-<version>-all.jar)");
        }
        Path jar = Path.of(path);
        for (int attempt = 1; attempt <= 20; attempt++) {
            try {
                Path copy = Files.createTempFile("outbox-worker-it-", ".jar");
                copy.toFile().deleteOnExit();
                Files.copy(jar, copy, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                if (isComplete(copy)) {
                    privateJar = copy;
                    return copy;
                }
                Files.deleteIfExists(copy);
            } catch (IOException e) {
                // missing or being rewritten: try again
            }
            try {
                Thread.sleep(3000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        throw new IllegalStateException("shaded jar " + jar + " is missing or incomplete: run 'mvn package' first");
    }

    private static boolean isComplete(Path jar) {
        try (java.util.zip.ZipFile zip = new java.util.zip.ZipFile(jar.toFile())) {
            return List.of(
                            "dev/outboxjava/relayapp/OutboxCli.class",
                            "picocli/CommandLine.class",
                            "org/postgresql/Driver.class",
                            "META-INF/services/java.sql.Driver",
                            "com/rabbitmq/client/ConnectionFactory.class",
                            "org/apache/kafka/clients/producer/KafkaProducer.class")
                    .stream()
                    .allMatch(name -> zip.getEntry(name) != null);
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * The settings of a worker relaying {@code fixture}'s table to RabbitMQ: the database at
     * {@code databaseUrl} (the fixture's own, or a proxy in front of it), the broker at {@code rabbitUri},
     * HTTP on {@code httpPort} of the loopback interface, a 5 s shutdown timeout. Tests add their own.
     */
    static Map<String, String> rabbitMqEnvironment(
            WorkerFixture fixture, String databaseUrl, String rabbitUri, int httpPort) {
        Map<String, String> env = new HashMap<>();
        env.put("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
        env.put("OUTBOX_DB_URL", databaseUrl);
        env.put("OUTBOX_DB_USER", fixture.postgres().user());
        env.put("OUTBOX_DB_PASSWORD", fixture.postgres().password());
        env.put("OUTBOX_TABLE", fixture.table().name);
        env.put("OUTBOX_BROKER", "rabbitmq");
        env.put("OUTBOX_RABBITMQ_URI", rabbitUri);
        env.put("OUTBOX_SHUTDOWN_TIMEOUT", "5s");
        env.put("OUTBOX_HTTP_HOST", "127.0.0.1");
        env.put("OUTBOX_HTTP_PORT", String.valueOf(httpPort));
        return env;
    }

    /** A port nothing listens on right now, for the worker's HTTP server. */
    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    static ChildJvm start(String name, Map<String, String> environment, String... args) {
        return ChildJvm.jar(jar(), args)
                .jvmOptions("-Xmx256m", "-XX:TieredStopAtLevel=1")
                .environment(environment)
                .logTo(Path.of("target", "it-logs", name + "-" + System.nanoTime() + ".log"))
                .start(name);
    }

    /** Runs a CLI command to completion and returns its exit code and output. */
    static Result run(String name, Map<String, String> environment, Duration timeout, String... args) {
        try (ChildJvm process = start(name, environment, args)) {
            int code = process.waitFor(timeout);
            return new Result(code, process.output());
        }
    }

    record Result(int exitCode, String output) {}
}
