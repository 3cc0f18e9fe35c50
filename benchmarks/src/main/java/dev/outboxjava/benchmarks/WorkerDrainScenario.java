package dev.outboxjava.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.outboxjava.benchmarks.internal.Brokers;
import dev.outboxjava.benchmarks.internal.CpuBreakdown;
import dev.outboxjava.benchmarks.internal.Drainers;
import dev.outboxjava.benchmarks.internal.OutboxTables;
import dev.outboxjava.benchmarks.internal.Services;
import dev.outboxjava.benchmarks.internal.SqlDrainers;
import dev.outboxjava.benchmarks.internal.Stats;
import dev.outboxjava.benchmarks.internal.TickTimings;
import dev.outboxjava.benchmarks.internal.WorkerRun;
import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.postgres.StoreLayout;
import dev.outboxjava.postgres.WakeUpMode;
import dev.outboxjava.worker.OutboxWorker;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * Scenario 3: the library's {@link OutboxWorker} (its relay threads, the real publishers, the real
 * store) draining the same backlog to Kafka and to RabbitMQ, in both completion modes, and to Kafka
 * and to no broker in each store layout chosen (RabbitMQ, bound by the broker, in place only). The clock
 * runs from {@code start()} until the relay has marked every event published, or the drain window
 * ends; the figure is events marked published per second.
 */
public final class WorkerDrainScenario {

    /** One variant. */
    public record Variant(Brokers.Kind broker, CompletionMode completion, StoreLayout layout) {
        public String label() {
            return broker.display() + ", "
                    + (completion == CompletionMode.KEEP_SENT ? "keep sent" : "delete on publish")
                    + (layout == StoreLayout.APPEND_LOG ? ", append-only log" : "");
        }

        /** The same variant in the in-place layout: the reference of an append-only one. */
        public Variant inPlace() {
            return new Variant(broker, completion, StoreLayout.IN_PLACE);
        }
    }

    /** Events drained, unmeasured, per variant before the runs. */
    static final int WARM_UP_ROWS = 20_000;

    private static final Duration WARM_UP_LIMIT = Duration.ofSeconds(90);

    private final Map<Variant, String> breakdown = new LinkedHashMap<>();
    /** Per run, the worker's rate over the layout's ceiling drained on the same table just before it. */
    private final Map<Variant, List<Double>> besideCeiling = new LinkedHashMap<>();

    private final Map<Variant, String> cpu = new LinkedHashMap<>();
    private final Map<Variant, String> gaugesPoll = new LinkedHashMap<>();
    private String lastCpu = "";

    private final Services services;
    private final OutboxTables tables;
    private final Brokers brokers;
    private final BenchmarkConfig options;

    public WorkerDrainScenario(Services services, OutboxTables tables, Brokers brokers, BenchmarkConfig options) {
        this.services = services;
        this.tables = tables;
        this.brokers = brokers;
        this.options = options;
    }

    /** Where a tick's time went in each variant's last run (mean lease, publish and mark times). */
    public Map<Variant, String> breakdown() {
        return Map.copyOf(breakdown);
    }

    /**
     * The median of the per-run ratios worker / ceiling, where before each Kafka and no-broker drain
     * the database's own ceiling for the layout ({@link #ceilingBeside}) drained the same backlog on the
     * same table: both figures from the same minute, so the database's drift between scenarios drops out.
     * Empty for variants measured without it (RabbitMQ) or when scenario 1 did not run.
     */
    public Map<Variant, Double> ratioToAdjacentCeiling() {
        Map<Variant, Double> medians = new LinkedHashMap<>();
        besideCeiling.forEach((variant, ratios) -> medians.put(variant, Stats.median(ratios)));
        return medians;
    }

    /** Where the CPU went in each variant's last run, per event relayed. */
    public Map<Variant, String> cpu() {
        return Map.copyOf(cpu);
    }

    /**
     * What the worker's backlog gauges cost the database while it drains: one poll over the full backlog,
     * timed alone on the loaded table, beside the variant's drain time (the ceiling pays no such poll).
     */
    public Map<Variant, String> gaugesPoll() {
        return Map.copyOf(gaugesPoll);
    }

    /**
     * @param ceiling scenario 1's result, whose best configuration drains beside each worker drain;
     *                null to skip those adjacent drains
     * @return the median rows per second of each variant
     */
    public Map<Variant, Double> run(CeilingScenario.Result ceiling) {
        Map<Variant, PostgresOutboxStore> stores = new LinkedHashMap<>();
        Map<Variant, String> destinations = new LinkedHashMap<>();
        Map<Variant, List<Double>> rates = new LinkedHashMap<>();
        try (HikariDataSource pool = services.newPool("worker-drain", options.relayThreads() + 4)) {
            for (Brokers.Kind kind : Brokers.Kind.values()) {
                String destination = brokers.newDestination(kind, "drain");
                for (CompletionMode mode : CompletionMode.values()) {
                    for (StoreLayout layout : layouts(kind)) {
                        Variant variant = new Variant(kind, mode, layout);
                        stores.put(
                                variant, tables.create("drain", mode, WakeUpMode.NONE, Ordering.none(), layout, pool));
                        destinations.put(variant, destination);
                        rates.put(variant, new ArrayList<>());
                    }
                }
            }
            // warm-up: the worker, store and publisher code (and the in-process broker's) load and compile first
            List<Variant> keepSent = stores.keySet().stream()
                    .filter(variant -> variant.completion() == CompletionMode.KEEP_SENT)
                    .toList();
            JitWarmUp.untilQuiet("S3", keepSent.size(), WARM_UP_LIMIT, round -> {
                Variant variant = keepSent.get(round % keepSent.size());
                PostgresOutboxStore store = stores.get(variant);
                tables.truncate(store);
                tables.loadPending(store, WARM_UP_ROWS, destinations.get(variant));
                double rate = drain(store, variant.broker(), new TickTimings(), WARM_UP_ROWS);
                return String.format(
                        Locale.ROOT, "%,d events -> %s at %,.0f rows/s", WARM_UP_ROWS, variant.label(), rate);
            });
            for (int run = 0; run < options.runs(); run++) {
                for (Variant variant : stores.keySet()) {
                    PostgresOutboxStore store = stores.get(variant);
                    tables.truncate(store);
                    double adjacentCeiling = ceiling != null && variant.broker() != Brokers.Kind.RABBITMQ
                            ? ceilingBeside(variant, store, pool, destinations.get(variant), ceiling)
                            : Double.NaN;
                    tables.loadPending(store, options.backlog(), destinations.get(variant));
                    TickTimings timings = new TickTimings();
                    double rate = drain(store, variant.broker(), timings, options.backlog());
                    rates.get(variant).add(rate);
                    if (!Double.isNaN(adjacentCeiling)) {
                        besideCeiling
                                .computeIfAbsent(variant, v -> new ArrayList<>())
                                .add(rate / adjacentCeiling);
                        Log.line(
                                "S3 run %d: the layout's ceiling beside it on the same table: %,.0f rows/s -> worker at %.1f %%",
                                run + 1, adjacentCeiling, 100 * rate / adjacentCeiling);
                    }
                    breakdown.put(variant, timings.describe());
                    cpu.put(variant, lastCpu);
                    Log.line(
                            "S3 run %d: worker -> %s: %,.0f rows/s (%d relay threads x batch %d; %s; %s)",
                            run + 1,
                            variant.label(),
                            rate,
                            options.relayThreads(),
                            options.batchSize(),
                            timings.describe(),
                            lastCpu);
                }
            }
            Map<Variant, Double> medians = new LinkedHashMap<>();
            rates.forEach((variant, list) -> medians.put(variant, Stats.median(list)));
            for (Variant variant : stores.keySet()) {
                PostgresOutboxStore store = stores.get(variant);
                tables.truncate(store);
                tables.loadPending(store, options.backlog(), destinations.get(variant));
                gaugesPoll.put(variant, gaugesPollBeside(store, medians.get(variant)));
                Log.line("S3: worker -> %s: %s", variant.label(), gaugesPoll.get(variant));
            }
            stores.values().forEach(tables::truncate);
            return medians;
        }
    }

    /**
     * The database's own ceiling for the variant's layout, drained on its table just before the worker (the
     * table is left empty). In place: the ceiling's SQL at its best batch size and drainers. Append-only: no
     * hand-written SQL stands for its lease (log positions, the state table, the generations), so the
     * store's own lease and mark statements back to back with no relay and no broker ({@link Drainers}), at
     * the ceiling's batch size, the better of one drainer and the ceiling's number.
     */
    private double ceilingBeside(
            Variant variant,
            PostgresOutboxStore store,
            HikariDataSource pool,
            String destination,
            CeilingScenario.Result ceiling) {
        if (variant.layout() == StoreLayout.IN_PLACE) {
            tables.loadPending(store, options.backlog(), destination);
            double rate = SqlDrainers.drain(
                    pool,
                    store.config().tableName(),
                    variant.completion() == CompletionMode.DELETE_ON_PUBLISH,
                    ceiling.batchSize(),
                    ceiling.drainers(),
                    options.backlog(),
                    options.drainWindow());
            tables.truncate(store);
            return rate;
        }
        double best = 0;
        for (int drainers : new TreeSet<>(List.of(1, ceiling.drainers()))) {
            tables.loadPending(store, options.backlog(), destination);
            best = Math.max(
                    best,
                    Drainers.drain(store, ceiling.batchSize(), drainers, options.backlog(), options.drainWindow()));
            tables.truncate(store);
        }
        return best;
    }

    /**
     * Times the reads of one poll of the worker's backlog gauges ({@code BacklogGauges}: the counts by
     * status, the oldest pending event, the backlog by what it waits for), which the worker makes when it
     * starts and every metrics poll interval; each reads every pending row.
     */
    private String gaugesPollBeside(PostgresOutboxStore store, double drainRate) {
        long start = System.nanoTime();
        store.countByStatus();
        store.oldestPendingCreatedAt();
        store.backlog(Instant.now());
        double pollSeconds = (System.nanoTime() - start) / 1e9;
        double drainSeconds = options.backlog() / drainRate;
        return String.format(
                Locale.ROOT,
                "the backlog gauges' poll at %,d pending events takes %,.0f ms of the database alone, %.0f %% of the"
                        + " median drain's %.1f s",
                options.backlog(),
                pollSeconds * 1000,
                100 * pollSeconds / drainSeconds,
                drainSeconds);
    }

    /** The layouts drained to {@code kind}: RabbitMQ's drain is bound by the broker, so in place alone. */
    private List<StoreLayout> layouts(Brokers.Kind kind) {
        return kind == Brokers.Kind.RABBITMQ ? List.of(StoreLayout.IN_PLACE) : options.drainLayouts();
    }

    private double drain(PostgresOutboxStore store, Brokers.Kind kind, TickTimings timings, long backlog) {
        WorkerRun.PublishedCounter counter = new WorkerRun.PublishedCounter();
        OutboxWorker worker = WorkerRun.worker(
                timings.wrap(store),
                timings.wrap(brokers.newPublisher(kind)),
                options.relayThreads(),
                options.batchSize(),
                Duration.ofSeconds(1),
                counter,
                List.of());
        try {
            CpuBreakdown cpuUse = CpuBreakdown.start();
            long start = System.nanoTime();
            long deadline = start + options.drainWindow().toNanos();
            worker.start();
            while (counter.published() < backlog && System.nanoTime() < deadline) {
                Thread.sleep(2);
            }
            double rate = counter.published() / ((System.nanoTime() - start) / 1e9);
            lastCpu = cpuUse.perEvent(counter.published()) + "; " + cpuUse.machineBusy();
            return rate;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } finally {
            worker.close();
        }
    }
}
