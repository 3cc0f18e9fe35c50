package dev.outboxjava.it.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A relay running as a separate OS process — by default the project's worker ({@code outbox-worker run}),
 * configured by environment variables only — whose output goes to a log file. {@link #kill()} is SIGKILL
 * ({@link Process#destroyForcibly()}): no shutdown hook runs, nothing is released or marked.
 */
public final class RelayProcess implements RelayHandle {

    private static final Logger LOG = LoggerFactory.getLogger(RelayProcess.class);
    /** The worker's command-line entry point, used when no shaded jar is given. */
    public static final String WORKER_MAIN_CLASS = "dev.outboxjava.relayapp.OutboxCli";
    /** System property naming the worker's shaded jar; when absent, this JVM's class path is used. */
    public static final String WORKER_JAR_PROPERTY = "outbox.worker.jar";
    /** What the worker logs when a mark is refused because the lease was lost. */
    public static final String LEASE_LOST_LOG_TEXT = "lease lost for event";

    private final String name;
    private final Process process;
    private final Path log;

    private RelayProcess(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
    }

    /**
     * The command that runs the worker's relay: {@code java -jar <outbox.worker.jar> run} when the system
     * property is set, else {@code java -cp <this JVM's class path> dev.outboxjava.relayapp.OutboxCli run}
     * (the worker must then be on the class path). Small heap, C1 only, serial GC: relays are many and
     * machines small.
     */
    public static List<String> workerCommand() {
        List<String> command = javaLauncher();
        String jar = System.getProperty(WORKER_JAR_PROPERTY);
        if (jar != null && !jar.isBlank()) {
            if (!Files.isRegularFile(Path.of(jar))) {
                throw new IllegalStateException(
                        "system property " + WORKER_JAR_PROPERTY + " names " + jar
                                + ", which does not exist: build the worker (mvn -pl outbox-relay-app -am package) or unset it");
            }
            command.addAll(List.of("-jar", jar));
        } else {
            command.addAll(List.of("-cp", System.getProperty("java.class.path"), WORKER_MAIN_CLASS));
        }
        command.add("run");
        return command;
    }

    /**
     * {@code java -cp <this JVM's class path> mainClass args...}: for a relay of your own assembly (e.g. one
     * built from the library's pieces with settings the worker does not offer).
     */
    public static List<String> javaCommand(String mainClass, String... args) {
        List<String> command = javaLauncher();
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), Objects.requireNonNull(mainClass)));
        command.addAll(List.of(args));
        return command;
    }

    private static List<String> javaLauncher() {
        return new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx192m",
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                "-Xss512k"));
    }

    /**
     * Starts a process with a clean environment holding only {@code environment} (plus {@code PATH}).
     *
     * @param name        readable name; also the log file's name
     * @param command     the command line, e.g. {@link #workerCommand()}
     * @param environment the settings, e.g. {@code OUTBOX_DB_URL}
     * @param logDirectory where the output goes
     */
    public static RelayProcess start(
            String name, List<String> command, Map<String, String> environment, Path logDirectory) {
        Objects.requireNonNull(name, "name");
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().clear();
        builder.environment().put("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
        builder.environment().putAll(environment);
        try {
            Files.createDirectories(logDirectory);
            Path log = logDirectory.resolve(name + "-" + System.currentTimeMillis() + ".log");
            builder.redirectErrorStream(true).redirectOutput(log.toFile());
            Process process = builder.start();
            LOG.info("started relay process {} (pid {}), log {}", name, process.pid(), log);
            return new RelayProcess(name, process, log);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start relay process " + name + ": " + e.getMessage(), e);
        }
    }

    @Override
    public String name() {
        return name;
    }

    /** The operating system's process id. */
    public long pid() {
        return process.pid();
    }

    /** Where its output goes. */
    public Path log() {
        return log;
    }

    @Override
    public boolean isAlive() {
        return process.isAlive();
    }

    @Override
    public void kill() {
        process.destroyForcibly();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException(
                        "relay process " + name + " (pid " + process.pid() + ") survived SIGKILL for 10 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Read from its log: the worker logs {@value #LEASE_LOST_LOG_TEXT} {@code <id>} for each refused mark. */
    @Override
    public Set<UUID> leaseLostIds() {
        Set<UUID> ids = new HashSet<>();
        output().lines().forEach(line -> {
            int at = line.indexOf(LEASE_LOST_LOG_TEXT);
            if (at >= 0) {
                int start = at + LEASE_LOST_LOG_TEXT.length() + 1;
                if (line.length() >= start + 36) {
                    try {
                        ids.add(UUID.fromString(line.substring(start, start + 36)));
                    } catch (IllegalArgumentException e) {
                        // not an id: a line of another shape
                    }
                }
            }
        });
        return ids;
    }

    /** Everything it printed so far. */
    public String output() {
        try {
            return Files.readString(log, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(cannot read " + log + ": " + e.getMessage() + ")";
        }
    }

    /** The last {@code lines} lines of its output. */
    public String outputTail(int lines) {
        List<String> all = output().lines().toList();
        return String.join(System.lineSeparator(), all.subList(Math.max(0, all.size() - lines), all.size()));
    }

    /** SIGTERM, then SIGKILL if it has not exited within 20 s. */
    @Override
    public void close() {
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                LOG.warn("relay process {} did not stop within 20 s of SIGTERM; killing it", name);
                kill();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }

    @Override
    public String toString() {
        return name + " (pid " + process.pid() + ")";
    }
}
