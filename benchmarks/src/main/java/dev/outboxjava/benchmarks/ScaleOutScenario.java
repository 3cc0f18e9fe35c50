package dev.outboxjava.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.outboxjava.benchmarks.internal.Brokers;
import dev.outboxjava.benchmarks.internal.OutboxTables;
import dev.outboxjava.benchmarks.internal.RelayProcess;
import dev.outboxjava.benchmarks.internal.Services;
import dev.outboxjava.benchmarks.internal.SqlDrainers;
import dev.outboxjava.benchmarks.internal.Stats;
import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.core.relay.RelayConfig;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.postgres.StoreLayout;
import dev.outboxjava.postgres.WakeUpMode;
import dev.outboxjava.worker.OutboxWorkerConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Scenario 8: relays as separate processes, the way replicas of a service run them. The same backlog
 * (over {@code --scale-keys} keys, 1,000 by default, written round-robin) is drained into Kafka,
 * keep-sent, by 1, 2 and 4 relay JVMs with the library's default threads and batch, with ordering none
 * and per key; and by one relay JVM with other threads × batch choices beside the defaults, in each
 * store layout chosen. Before each drain the
 * database's own ceiling (the store's SQL with no broker, {@link SqlDrainers}, on an in-place table of
 * its own) drains the same backlog, so every figure is a ratio to a ceiling measured a minute earlier
 * on the same machine; the append-only log, whose SQL is not the ceiling's, may drain faster than it.
 */
public final class ScaleOutScenario {

    /** The relay processes, their threads × batch and ordering, and the layout they drain. */
    public record Shape(int processes, int threads, int batchSize, Ordering.Mode ordering, StoreLayout layout) {

        /** E.g. {@code 2 relay processes x 1 thread x batch 500, ordering per_key, append-only log}. */
        public String label() {
            return processes + " relay process" + (processes == 1 ? "" : "es") + " x " + threads + " thread"
                    + (threads == 1 ? "" : "s") + " x batch " + batchSize + ", ordering "
                    + ordering.name().toLowerCase(Locale.ROOT)
                    + (layout == StoreLayout.APPEND_LOG ? ", append-only log" : ", in place");
        }

        /** Whether the threads and batch are the library's defaults. */
        public boolean isLibraryDefault() {
            return threads == OutboxWorkerConfig.DEFAULT_RELAY_THREADS && hasDefaultBatch();
        }

        /** Whether the batch is the library's default for this shape's ordering. */
        boolean hasDefaultBatch() {
            return batchSize == defaultBatch(ordering);
        }

        /**
         * The same relays without per-key ordering; a per-key shape at its ordering's default batch is
         * compared with the unordered default batch, which is what a user who switches ordering on gets.
         */
        public Shape unordered() {
            int batch = hasDefaultBatch() ? defaultBatch(Ordering.Mode.NONE) : batchSize;
            return new Shape(processes, threads, batch, Ordering.Mode.NONE, layout);
        }
    }

    /** The relays' rate in every run, in run order, and the median of its shares of the ceiling drained just before. */
    public record Drain(Shape shape, List<Double> runRates, double shareOfCeiling) {

        public Drain {
            runRates = List.copyOf(runRates);
        }

        /** The median of the runs' rates. */
        public double rowsPerSecond() {
            return Stats.median(runRates);
        }

        /**
         * Per-key ordering's cost against {@code unordered}: the median over the runs of 1 − this rate /
         * its rate in the same run. The two drain one after the other ({@link ScaleOutScenario#shapes}), so the database's
         * drift between drains stays out; their ceilings, each drained just before, would add their own
         * swings to the ratio.
         */
        public double costAgainst(Drain unordered) {
            if (runRates.size() != unordered.runRates.size()) {
                throw new IllegalArgumentException(
                        "runs differ: " + runRates.size() + " against " + unordered.runRates.size());
            }
            List<Double> costs = new ArrayList<>();
            for (int run = 0; run < runRates.size(); run++) {
                costs.add(1 - runRates.get(run) / unordered.runRates.get(run));
            }
            return Stats.median(costs);
        }
    }

    /** Relay threads × batch size measured in one relay process beside the library's defaults. */
    private static final int[][] CHOICES = {{1, 500}, {1, 1000}, {2, 500}, {2, 1000}, {4, 1000}};

    /** The ceiling's SQL when scenario 1 did not run: batch and drainers that were near its best here. */
    private static final int DEFAULT_CEILING_BATCH = 1000;

    private static final int DEFAULT_CEILING_DRAINERS = 2;
    private static final Duration FIRST_PUBLISH_TIMEOUT = Duration.ofSeconds(60);
    /**
     * The shortest drain window: a relay process's figure includes its producer's first requests and
     * the other processes joining, which a few seconds' window would weigh too much.
     */
    private static final Duration MIN_WINDOW = Duration.ofSeconds(20);

    private final Services services;
    private final OutboxTables tables;
    private final Brokers brokers;
    private final BenchmarkConfig options;

    public ScaleOutScenario(Services services, OutboxTables tables, Brokers brokers, BenchmarkConfig options) {
        this.services = services;
        this.tables = tables;
        this.brokers = brokers;
        this.options = options;
    }

    /**
     * The shapes measured in {@code layout}: the scale-out with {@code threads} relay threads per process and the
     * library's default batch of each ordering, then one process with the other threads × batch choices, each with
     * ordering none and per key. A per-key shape comes right after the unordered one it is compared with, where
     * the choices allow.
     */
    static List<Shape> shapes(StoreLayout layout, int threads) {
        List<Shape> shapes = new ArrayList<>();
        for (int processes : new int[] {1, 2, 4}) {
            for (Ordering.Mode ordering : Ordering.Mode.values()) {
                shapes.add(new Shape(processes, threads, defaultBatch(ordering), ordering, layout));
            }
        }
        for (int[] choice : CHOICES) {
            for (Ordering.Mode ordering : Ordering.Mode.values()) {
                if (choice[0] != threads || choice[1] != defaultBatch(ordering)) {
                    shapes.add(new Shape(1, choice[0], choice[1], ordering, layout));
                }
            }
        }
        return shapes;
    }

    /** The library's default batch for this ordering. */
    static int defaultBatch(Ordering.Mode mode) {
        return RelayConfig.defaultBatchSize(ordering(mode));
    }

    /** The store's ordering for a shape's mode; a dead letter holds its key, the library's default. */
    private static Ordering ordering(Ordering.Mode mode) {
        return mode == Ordering.Mode.PER_KEY ? Ordering.perKey(Ordering.AfterDeadLetter.HOLD_KEY) : Ordering.none();
    }

    /** @param ceiling scenario 1's result, whose best SQL configuration is the reference; null for a default one */
    public List<Drain> run(CeilingScenario.Result ceiling) {
        int ceilingBatch = ceiling != null ? ceiling.batchSize() : DEFAULT_CEILING_BATCH;
        int ceilingDrainers = ceiling != null ? ceiling.drainers() : DEFAULT_CEILING_DRAINERS;
        String topic = brokers.newDestination(Brokers.Kind.KAFKA, "scale");
        Map<Shape, List<Double>> rates = new LinkedHashMap<>();
        Map<Shape, List<Double>> shares = new LinkedHashMap<>();
        try (HikariDataSource pool = services.newPool("scale-out", ceilingDrainers + 2)) {
            PostgresOutboxStore ceilingTable =
                    tables.create("scale_ceiling", CompletionMode.KEEP_SENT, WakeUpMode.NONE, pool);
            Map<StoreLayout, Map<Ordering.Mode, PostgresOutboxStore>> stores = new LinkedHashMap<>();
            for (StoreLayout layout : options.scaleLayouts()) {
                for (Ordering.Mode mode : Ordering.Mode.values()) {
                    stores.computeIfAbsent(layout, l -> new LinkedHashMap<>())
                            .put(
                                    mode,
                                    tables.create(
                                            "scale",
                                            CompletionMode.KEEP_SENT,
                                            WakeUpMode.NONE,
                                            ordering(mode),
                                            layout,
                                            pool));
                }
            }
            for (int run = 0; run < options.runs(); run++) {
                for (StoreLayout layout : options.scaleLayouts()) {
                    for (Shape shape : inRunOrder(shapes(layout, options.scaleThreads()), run)) {
                        PostgresOutboxStore store = stores.get(layout).get(shape.ordering());
                        // the ceiling's table is empty here: new, or emptied right after its last drain
                        tables.loadPending(ceilingTable, options.backlog(), topic, options.scaleKeys());
                        double sql = SqlDrainers.drain(
                                pool,
                                ceilingTable.config().tableName(),
                                false,
                                ceilingBatch,
                                ceilingDrainers,
                                options.backlog(),
                                options.drainWindow());
                        tables.truncate(ceilingTable);
                        tables.truncate(store);
                        tables.loadPending(store, options.backlog(), topic, options.scaleKeys());
                        double rate = drain(shape, store, topic);
                        rates.computeIfAbsent(shape, s -> new ArrayList<>()).add(rate);
                        shares.computeIfAbsent(shape, s -> new ArrayList<>()).add(rate / sql);
                        Log.line(
                                "S8 run %d: %s: %,.0f rows/s; ceiling SQL just before on an in-place table %,.0f "
                                        + "rows/s (%.1f %%)",
                                run + 1, shape.label(), rate, sql, 100 * rate / sql);
                    }
                }
            }
            stores.values().forEach(byOrdering -> byOrdering.values().forEach(tables::truncate));
        }
        List<Drain> drains = new ArrayList<>();
        rates.forEach((shape, list) -> drains.add(new Drain(shape, list, Stats.median(shares.get(shape)))));
        return drains;
    }

    /** Every other run backwards, so that neither of two shapes compared always drains first. */
    static List<Shape> inRunOrder(List<Shape> shapes, int run) {
        if (run % 2 == 0) {
            return shapes;
        }
        List<Shape> backwards = new ArrayList<>(shapes);
        Collections.reverse(backwards);
        return backwards;
    }

    /**
     * Starts the relay JVMs, lets them go at once, and returns the events they marked published per
     * second (as they count them), from the first one (a new JVM's first lease and its producer's first
     * metadata request are a start-up cost, not the relay's rate) until the backlog is drained or the
     * drain window ends.
     */
    private double drain(Shape shape, PostgresOutboxStore store, String topic) {
        List<RelayProcess> relays = new ArrayList<>();
        try {
            for (int i = 0; i < shape.processes(); i++) {
                relays.add(RelayProcess.start(new RelayProcess.Settings(
                        services.jdbcUrl(),
                        store.config().tableName(),
                        store.config().ordering(),
                        store.config().layout(),
                        services.kafkaBootstrapServers(),
                        topic,
                        shape.threads(),
                        shape.batchSize(),
                        options.kafkaProperties())));
            }
            relays.forEach(RelayProcess::go);
            long firstDeadline = System.nanoTime() + FIRST_PUBLISH_TIMEOUT.toNanos();
            while (published(relays) == 0) {
                if (System.nanoTime() > firstDeadline) {
                    throw new IllegalStateException(shape.label() + ": nothing published within "
                            + FIRST_PUBLISH_TIMEOUT.toSeconds() + " s; the relay JVMs' output is above");
                }
                Thread.sleep(5);
            }
            long start = System.nanoTime();
            long before = published(relays);
            long deadline = start + Math.max(options.drainWindow().toNanos(), MIN_WINDOW.toNanos());
            while (System.nanoTime() < deadline && published(relays) < options.backlog()) {
                Thread.sleep(5);
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            return (published(relays) - before) / seconds;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } finally {
            relays.forEach(RelayProcess::close);
        }
    }

    private static long published(List<RelayProcess> relays) {
        return relays.stream().mapToLong(RelayProcess::published).sum();
    }
}
