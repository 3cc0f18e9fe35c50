package dev.outboxjava.benchmarks.internal;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.kafka.KafkaPublisher;
import dev.outboxjava.kafka.KafkaPublisherConfig;
import dev.outboxjava.postgres.OutboxWriter;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.postgres.StoreLayout;
import dev.outboxjava.postgres.WakeUpMode;
import dev.outboxjava.testkit.fixture.ChildJvm;
import dev.outboxjava.worker.OutboxWorker;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A relay in a JVM of its own, as a second or fourth replica of a service runs one: its own pool,
 * Kafka producer and {@link OutboxWorker} on a table the parent created and filled. Before it reports
 * ready it drains a warm-up table of its own (a new JVM's first seconds are spent compiling); it starts
 * its worker when the parent writes {@code go}, so every replica starts draining at the same moment,
 * reports the events it marked published on its standard output ({@link #published()}: counted by the
 * relay, not by queries that would load the database being measured), and stops when its standard
 * input ends.
 */
public final class RelayProcess implements AutoCloseable {

    private static final int START_TIMEOUT_SECONDS = 120;
    private static final int STOP_TIMEOUT_SECONDS = 60;
    private static final String PUBLISHED = "published ";
    /** How often a relay JVM reports its count while it has published something new. */
    private static final Duration REPORT_INTERVAL = Duration.ofMillis(10);

    /** What one relay process runs; {@code topic} receives its warm-up events. */
    public record Settings(
            String jdbcUrl,
            String table,
            Ordering ordering,
            StoreLayout layout,
            String bootstrapServers,
            String topic,
            int threads,
            int batchSize,
            Map<String, String> kafkaProperties) {}

    /** The pool the standalone relay opens by default ({@code outbox.db.pool.size}), so both relays compare. */
    private static final int DEFAULT_POOL_SIZE = 4;

    /** Events a relay JVM drains from a table of its own before it reports ready, so its code is compiled. */
    static final int WARM_UP_EVENTS = 20_000;

    private static final Duration WARM_UP_LIMIT = Duration.ofSeconds(90);

    private final ChildJvm process;
    private final AtomicLong published;

    private RelayProcess(ChildJvm process, AtomicLong published) {
        this.process = process;
        this.published = published;
    }

    /** Starts a relay JVM and waits until its worker is built (not started: see {@link #go()}). */
    public static RelayProcess start(Settings settings) {
        List<String> args = new ArrayList<>(List.of(
                settings.jdbcUrl(),
                settings.table(),
                settings.ordering().isPerKey() ? "per_key" : "none",
                settings.layout().name(),
                settings.bootstrapServers(),
                settings.topic(),
                String.valueOf(settings.threads()),
                String.valueOf(settings.batchSize())));
        settings.kafkaProperties().forEach((name, value) -> args.add(name + "=" + value));
        ChildJvm process = ChildJvm.mainClass(RelayProcess.class.getName(), args.toArray(String[]::new))
                .classPath(KafkaBrokerProcess.classPath())
                .jvmOptions("-Xmx512m")
                .inheritEnvironment()
                .start("relay");
        CompletableFuture<Void> ready = new CompletableFuture<>();
        AtomicLong published = new AtomicLong();
        Thread output = new Thread(
                () -> {
                    try (BufferedReader lines =
                            new BufferedReader(new InputStreamReader(process.stdout(), StandardCharsets.UTF_8))) {
                        for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                            if (line.equals("ready")) {
                                ready.complete(null);
                            } else if (line.startsWith(PUBLISHED)) {
                                published.set(Long.parseLong(line.substring(PUBLISHED.length())));
                            }
                        }
                    } catch (IOException e) {
                        ready.completeExceptionally(e);
                    }
                    ready.completeExceptionally(new IllegalStateException("the relay JVM ended before it was ready"));
                },
                "relay-jvm-output");
        output.setDaemon(true);
        output.start();
        try {
            ready.get(START_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            return new RelayProcess(process, published);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.close();
            throw new IllegalStateException("interrupted while a relay JVM started", e);
        } catch (ExecutionException | TimeoutException e) {
            process.close();
            throw new IllegalStateException(
                    "the relay JVM (pid " + process.pid() + ") did not report ready within " + START_TIMEOUT_SECONDS
                            + " s; its output is above",
                    e);
        }
    }

    /** Starts the worker. */
    public void go() {
        try {
            OutputStream in = process.stdin();
            in.write("go\n".getBytes(StandardCharsets.UTF_8));
            in.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("the relay JVM (pid " + process.pid() + ") is gone", e);
        }
    }

    /** Events this relay has marked published since {@link #go()}, as it last reported. */
    public long published() {
        return published.get();
    }

    /** Ends the relay's standard input (it closes its worker), then waits for it to exit. */
    @Override
    public void close() {
        try {
            process.stdin().close();
        } catch (IOException e) {
            // gone already: close() below reaps it
        }
        if (!process.awaitExit(Duration.ofSeconds(STOP_TIMEOUT_SECONDS))) {
            process.close();
        }
    }

    /**
     * The relay JVM: {@code jdbcUrl table none|per_key IN_PLACE|APPEND_LOG bootstrapServers topic threads
     * batchSize [kafkaProperty=value...]}.
     */
    public static void main(String[] args) throws IOException {
        dev.outboxjava.benchmarks.BenchmarkMain.quietLogging();
        String table = args[1];
        Ordering ordering =
                args[2].equals("per_key") ? Ordering.perKey(Ordering.AfterDeadLetter.HOLD_KEY) : Ordering.none();
        StoreLayout layout = StoreLayout.valueOf(args[3]);
        String topic = args[5];
        int threads = Integer.parseInt(args[6]);
        int batchSize = Integer.parseInt(args[7]);
        HikariConfig poolConfig = new HikariConfig();
        poolConfig.setJdbcUrl(args[0]);
        poolConfig.setUsername("postgres");
        poolConfig.setPassword("");
        // the standalone worker's default pool, or a larger one when the relay threads need it
        poolConfig.setMaximumPoolSize(Math.max(DEFAULT_POOL_SIZE, threads + 1));
        poolConfig.setPoolName("relay-process");
        KafkaPublisherConfig.Builder kafka = KafkaPublisherConfig.builder().bootstrapServers(args[4]);
        for (int i = 8; i < args.length; i++) {
            int eq = args[i].indexOf('=');
            kafka.property(args[i].substring(0, eq), args[i].substring(eq + 1));
        }
        try (HikariDataSource pool = new HikariDataSource(poolConfig)) {
            warmUp(
                    pool,
                    table + "_warmup_" + ProcessHandle.current().pid(),
                    ordering,
                    layout,
                    topic,
                    kafka,
                    threads,
                    batchSize);
            PostgresOutboxStore store = PostgresOutboxStore.create(pool, config(table, ordering, layout));
            WorkerRun.PublishedCounter counter = new WorkerRun.PublishedCounter();
            // polls often: the parent fills the table before "go", so the poll interval only matters at the end
            try (OutboxWorker worker = WorkerRun.worker(
                    store,
                    KafkaPublisher.create(kafka.build()),
                    threads,
                    batchSize,
                    ordering,
                    Duration.ofMillis(50),
                    counter,
                    List.of())) {
                BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
                System.out.println("ready");
                System.out.flush();
                Thread reporter = new Thread(() -> report(counter), "relay-jvm-published");
                reporter.setDaemon(true);
                for (String line = stdin.readLine(); line != null; line = stdin.readLine()) {
                    if (line.equals("go")) {
                        worker.start();
                        reporter.start();
                    }
                }
            }
        }
    }

    /** Prints the published count whenever it changed, every {@link #REPORT_INTERVAL}. */
    private static void report(WorkerRun.PublishedCounter counter) {
        long reported = 0;
        while (true) {
            long now = counter.published();
            if (now != reported) {
                System.out.println(PUBLISHED + now);
                System.out.flush();
                reported = now;
            }
            try {
                Thread.sleep(REPORT_INTERVAL.toMillis());
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private static PostgresOutboxConfig config(String table, Ordering ordering, StoreLayout layout) {
        return PostgresOutboxConfig.builder()
                .layout(layout)
                .tableName(table)
                .completionMode(CompletionMode.KEEP_SENT)
                .wakeUpMode(WakeUpMode.NONE)
                .ordering(ordering)
                .build();
    }

    /** Drains {@link #WARM_UP_EVENTS} from a table of its own into {@code topic}, then drops the table. */
    private static void warmUp(
            HikariDataSource pool,
            String table,
            Ordering ordering,
            StoreLayout layout,
            String topic,
            KafkaPublisherConfig.Builder kafka,
            int threads,
            int batchSize) {
        PostgresOutboxConfig config = config(table, ordering, layout);
        PostgresOutboxStore store = PostgresOutboxStore.create(pool, config);
        store.ensureSchema();
        try {
            OutboxWriter writer = OutboxWriter.create(config);
            byte[] payload = new byte[OutboxTables.PAYLOAD_BYTES];
            try (Connection connection = pool.getConnection()) {
                connection.setAutoCommit(false);
                List<OutboxEvent> events = new ArrayList<>(WARM_UP_EVENTS);
                for (int i = 0; i < WARM_UP_EVENTS; i++) {
                    events.add(OutboxEvent.builder()
                            .type("bench.warmup")
                            .key("key-" + (i % 1000))
                            .destination(topic)
                            .payload(payload)
                            .build());
                }
                writer.append(connection, events);
                connection.commit();
            }
            WorkerRun.PublishedCounter counter = new WorkerRun.PublishedCounter();
            try (OutboxWorker worker = WorkerRun.worker(
                    store,
                    KafkaPublisher.create(kafka.build()),
                    threads,
                    batchSize,
                    ordering,
                    Duration.ofMillis(50),
                    counter,
                    List.of())) {
                worker.start();
                long deadline = System.nanoTime() + WARM_UP_LIMIT.toNanos();
                while (counter.published() < WARM_UP_EVENTS && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot fill the warm-up table " + table, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            try (Connection connection = pool.getConnection();
                    Statement statement = connection.createStatement()) {
                statement.execute(OutboxTables.dropStatement(config));
            } catch (SQLException e) {
                System.err.println("cannot drop the warm-up table " + table + ": " + e.getMessage());
            }
        }
    }
}
