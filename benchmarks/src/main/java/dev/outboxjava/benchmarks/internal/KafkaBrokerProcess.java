package dev.outboxjava.benchmarks.internal;

import dev.outboxjava.benchmarks.BenchmarkMain;
import dev.outboxjava.testkit.fixture.ChildJvm;
import dev.outboxjava.testkit.kafka.EmbeddedKafkaBroker;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The test kit's single-node KRaft broker, run in a JVM of its own, as a broker runs in production.
 *
 * <p>In the benchmark's JVM the broker shares one heap, one collector and one set of threads with the
 * relay, the producers and the consumer, so each of that JVM's collector pauses stopped the broker
 * too, and its CPU could not be told apart from theirs. Here it has its own heap, with the settings
 * of Kafka's own start scripts ({@link #BROKER_JVM_OPTIONS}), and its CPU shows as a process of its
 * own in {@link CpuBreakdown}.
 *
 * <p>The child runs {@link #main} from this JVM's class path, prints {@value #READY} and its
 * bootstrap address on standard output, and stops (deleting its log directory) when its standard
 * input ends — when {@link #close()} closes it, or when this JVM dies.
 */
public final class KafkaBrokerProcess implements AutoCloseable {

    /** {@code kafka-server-start.sh}'s heap and {@code kafka-run-class.sh}'s collector settings. */
    public static final List<String> BROKER_JVM_OPTIONS = List.of(
            "-Xms1g",
            "-Xmx1g",
            "-XX:+UseG1GC",
            "-XX:MaxGCPauseMillis=20",
            "-XX:InitiatingHeapOccupancyPercent=35",
            "-XX:+ExplicitGCInvokesConcurrent",
            "-Djava.awt.headless=true");

    static final String READY = "outbox-kafka-broker-ready ";
    /** The line prefix of each stop-the-world pause the child reports, followed by its duration in ms. */
    static final String GC_PAUSE = "outbox-kafka-broker-gc-pause ";

    private static final long START_TIMEOUT_SECONDS = 120;
    private static final long STOP_TIMEOUT_SECONDS = 60;

    private final ChildJvm process;
    private final String bootstrapServers;

    private KafkaBrokerProcess(ChildJvm process, String bootstrapServers) {
        this.process = process;
        this.bootstrapServers = bootstrapServers;
    }

    /**
     * Starts a broker JVM whose log directory goes under {@code logParent}, with {@code overrides} over the
     * test kit's broker settings, and waits until it listens.
     *
     * @throws IllegalStateException if it does not report ready within two minutes (its output is on
     *     this process's standard error)
     */
    public static KafkaBrokerProcess start(Path logParent, Map<String, String> overrides) {
        List<String> args = new ArrayList<>();
        args.add(logParent.toString());
        overrides.forEach((name, value) -> args.add(name + "=" + value));
        ChildJvm process = ChildJvm.mainClass(KafkaBrokerProcess.class.getName(), args.toArray(String[]::new))
                .classPath(classPath())
                .jvmOptions(BROKER_JVM_OPTIONS.toArray(String[]::new))
                .inheritEnvironment()
                .start("kafka-broker");
        CompletableFuture<String> ready = new CompletableFuture<>();
        GcPauses.BROKER_JVM.expectReports();
        Thread output = new Thread(() -> forwardOutput(process, ready), "kafka-broker-jvm-output");
        output.setDaemon(true);
        output.start();
        try {
            String bootstrap = ready.get(START_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            return new KafkaBrokerProcess(process, bootstrap);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.close();
            throw new IllegalStateException("interrupted while the Kafka broker JVM started", e);
        } catch (ExecutionException | TimeoutException e) {
            process.close();
            throw new IllegalStateException(
                    "the Kafka broker JVM (pid " + process.pid() + ") did not report ready within "
                            + START_TIMEOUT_SECONDS
                            + " s; its output is above. Use --kafka-broker in-process to run it in "
                            + "this JVM instead",
                    e instanceof ExecutionException ? e.getCause() : e);
        }
    }

    /** {@code 127.0.0.1:port} of the broker's client listener. */
    public String bootstrapServers() {
        return bootstrapServers;
    }

    /** The broker JVM's process id. */
    public long pid() {
        return process.pid();
    }

    /** Ends the broker's standard input (it stops and deletes its log directory), then waits for it to exit. */
    @Override
    public void close() {
        try {
            process.stdin().close();
        } catch (IOException e) {
            // gone already: close() below reaps it
        }
        if (!process.awaitExit(Duration.ofSeconds(STOP_TIMEOUT_SECONDS))) {
            System.err.println("the Kafka broker JVM (pid " + process.pid() + ") did not stop within "
                    + STOP_TIMEOUT_SECONDS + " s; killing it");
            process.close();
        }
    }

    /**
     * This JVM's class path for the child: {@code java.class.path} (the benchmark jar, whose manifest
     * names its {@code lib/} jars), and the URLs of a class loader in between (Maven's {@code exec:java}).
     */
    static String classPath() {
        Set<String> entries = new LinkedHashSet<>(
                List.of(System.getProperty("java.class.path").split(java.io.File.pathSeparator)));
        for (ClassLoader loader = KafkaBrokerProcess.class.getClassLoader();
                loader != null;
                loader = loader.getParent()) {
            if (loader instanceof URLClassLoader urls) {
                for (URL url : urls.getURLs()) {
                    if (url.getProtocol().equals("file")) {
                        entries.add(Path.of(java.net.URI.create(url.toString())).toString());
                    }
                }
            }
        }
        return String.join(java.io.File.pathSeparator, entries);
    }

    /**
     * Reads the child's standard output until it ends: completes {@code ready} with the address on the
     * ready line, notes each reported GC pause in {@link GcPauses#BROKER_JVM}, and passes every other
     * line to standard error (a pipe nobody reads would block the child once it filled).
     */
    private static void forwardOutput(ChildJvm process, CompletableFuture<String> ready) {
        BufferedReader out = new BufferedReader(new InputStreamReader(process.stdout(), StandardCharsets.UTF_8));
        try {
            for (String line = out.readLine(); line != null; line = out.readLine()) {
                if (line.startsWith(READY) && !ready.isDone()) {
                    ready.complete(line.substring(READY.length()).trim());
                } else if (line.startsWith(GC_PAUSE)) {
                    GcPauses.BROKER_JVM.record(
                            System.nanoTime(),
                            Long.parseLong(line.substring(GC_PAUSE.length()).trim()));
                } else {
                    System.err.println("[kafka broker JVM] " + line);
                }
            }
        } catch (IOException e) {
            ready.completeExceptionally(new UncheckedIOException("lost the Kafka broker JVM's output", e));
        }
        ready.completeExceptionally(new IllegalStateException("the Kafka broker JVM exited before it was ready"));
    }

    /**
     * The child: {@code <log parent> [name=value ...]}. Starts the broker, reports ready and then each
     * of its GC pauses, and stops when standard input ends.
     */
    public static void main(String[] args) throws IOException {
        if (args.length < 1) {
            System.err.println("usage: KafkaBrokerProcess <log parent directory> [broker-setting=value ...]");
            System.exit(2);
        }
        BenchmarkMain.quietLogging();
        GcPauses.listen(millis -> {
            System.out.println(GC_PAUSE + millis);
            System.out.flush();
        });
        Map<String, String> overrides = new LinkedHashMap<>();
        for (int i = 1; i < args.length; i++) {
            int eq = args[i].indexOf('=');
            overrides.put(args[i].substring(0, eq), args[i].substring(eq + 1));
        }
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(Path.of(args[0]), overrides)) {
            System.out.println(READY + broker.bootstrapServers());
            System.out.flush();
            while (System.in.read() >= 0) {
                // the parent never writes; the read returns -1 when it closes the pipe or dies
            }
        }
        System.exit(0);
    }
}
