package dev.outboxjava.it.faults;

import dev.outboxjava.testkit.fixture.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A relay running as a separate OS process ({@link ChildJvm}) — by default the project's worker
 * ({@code outbox-worker run}), configured by environment variables only — whose output goes to a log file.
 * {@link #kill()} is SIGKILL: no shutdown hook runs, nothing is released or marked.
 */
public final class RelayProcess implements RelayHandle {

    private static final Logger LOG = LoggerFactory.getLogger(RelayProcess.class);
    /** The worker's command-line entry point, used when no shaded jar is given. */
    public static final String WORKER_MAIN_CLASS = "dev.outboxjava.relayapp.OutboxCli";
    /** System property naming the worker's shaded jar; when absent, this JVM's class path is used. */
    public static final String WORKER_JAR_PROPERTY = "outbox.worker.jar";
    /** What the worker logs when a mark is refused because the lease was lost. */
    public static final String LEASE_LOST_LOG_TEXT = "lease lost for event";

    /** Small heap, C1 only, serial GC, small stacks: relays are many and machines small. */
    private static final String[] JVM_OPTIONS = {"-Xmx192m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xss512k"};

    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(20);

    private final ChildJvm jvm;

    private RelayProcess(ChildJvm jvm) {
        this.jvm = jvm;
    }

    /**
     * The worker's relay: {@code java -jar <outbox.worker.jar> run} when the system property is set, else
     * {@code java -cp <this JVM's class path> dev.outboxjava.relayapp.OutboxCli run} (the worker must then
     * be on the class path).
     */
    public static ChildJvm.Builder workerCommand() {
        String jar = System.getProperty(WORKER_JAR_PROPERTY);
        if (jar != null && !jar.isBlank()) {
            if (!Files.isRegularFile(Path.of(jar))) {
                throw new IllegalStateException(
                        "system property " + WORKER_JAR_PROPERTY + " names " + jar
                                + ", which does not exist: build the worker (mvn -pl outbox-relay-app -am package) or unset it");
            }
            return ChildJvm.jar(Path.of(jar), "run").jvmOptions(JVM_OPTIONS);
        }
        return ChildJvm.mainClass(WORKER_MAIN_CLASS, "run").jvmOptions(JVM_OPTIONS);
    }

    /**
     * {@code java -cp <this JVM's class path> mainClass args...}: for a relay of your own assembly (e.g. one
     * built from the library's pieces with settings the worker does not offer).
     */
    public static ChildJvm.Builder javaCommand(String mainClass, String... args) {
        return ChildJvm.mainClass(Objects.requireNonNull(mainClass), args).jvmOptions(JVM_OPTIONS);
    }

    /**
     * Starts a process with a clean environment holding only {@code environment} (plus {@code PATH}).
     *
     * @param name        readable name; also the log file's name
     * @param command     what it runs, e.g. {@link #workerCommand()}
     * @param environment the settings, e.g. {@code OUTBOX_DB_URL}
     * @param logDirectory where the output goes
     */
    public static RelayProcess start(
            String name, ChildJvm.Builder command, Map<String, String> environment, Path logDirectory) {
        Objects.requireNonNull(name, "name");
        ChildJvm jvm = command.environment(environment)
                .logTo(logDirectory.resolve(name + "-" + System.currentTimeMillis() + ".log"))
                .start(name);
        LOG.info("started relay process {} (pid {}), log {}", name, jvm.pid(), log(jvm));
        return new RelayProcess(jvm);
    }

    private static Path log(ChildJvm jvm) {
        return jvm.log().orElseThrow();
    }

    @Override
    public String name() {
        return jvm.name();
    }

    /** The operating system's process id. */
    public long pid() {
        return jvm.pid();
    }

    /** Where its output goes. */
    public Path log() {
        return log(jvm);
    }

    @Override
    public boolean isAlive() {
        return jvm.isAlive();
    }

    @Override
    public void kill() {
        jvm.kill();
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
        return jvm.output();
    }

    /** The last {@code lines} lines of its output. */
    public String outputTail(int lines) {
        return jvm.outputTail(lines);
    }

    /** SIGTERM, then SIGKILL if it has not exited within 20 s. */
    @Override
    public void close() {
        if (jvm.isAlive() && !stopped()) {
            LOG.warn(
                    "relay process {} did not stop within {} s of SIGTERM; killed it",
                    name(),
                    STOP_TIMEOUT.toSeconds());
        }
    }

    private boolean stopped() {
        jvm.terminate();
        if (jvm.awaitExit(STOP_TIMEOUT)) {
            return true;
        }
        jvm.kill();
        return false;
    }

    @Override
    public String toString() {
        return jvm.toString();
    }
}
