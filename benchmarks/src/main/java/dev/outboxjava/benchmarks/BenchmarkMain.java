package dev.outboxjava.benchmarks;

import dev.outboxjava.benchmarks.internal.Brokers;
import dev.outboxjava.benchmarks.internal.CpuBreakdown;
import dev.outboxjava.benchmarks.internal.GcPauses;
import dev.outboxjava.benchmarks.internal.KafkaBrokerProcess;
import dev.outboxjava.benchmarks.internal.MinuteStats;
import dev.outboxjava.benchmarks.internal.OutboxTables;
import dev.outboxjava.benchmarks.internal.Services;
import dev.outboxjava.benchmarks.internal.Stats;
import dev.outboxjava.core.InvalidConfigurationException;
import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.core.relay.RelayConfig;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.StoreLayout;
import dev.outboxjava.worker.OutboxWorkerConfig;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Runs every scenario against the real services and prints, on standard output, the machine facts,
 * the diagnostics and, last, the results table ({@link ResultTable}); progress goes to standard error.
 * {@code java -jar benchmarks/target/outbox-benchmarks.jar [--quick] [--help]}.
 */
public final class BenchmarkMain {

    private BenchmarkMain() {}

    public static void main(String[] args) throws Exception {
        quietLogging();
        GcPauses.recordThisJvm();
        if (List.of(args).contains("--help") || List.of(args).contains("-h")) {
            System.out.println(BenchmarkConfig.usage());
            return;
        }
        BenchmarkConfig options;
        try {
            options = BenchmarkConfig.parse(args);
        } catch (InvalidConfigurationException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        ResultTable table;
        try {
            table = run(options, System.out);
        } catch (Exception e) {
            if (Services.cleaningUpOnExit()) {
                // Ctrl-C: the clean-up ended this run's database sessions under it
                System.err.println("stopped: " + e.getMessage());
                return;
            }
            throw e;
        }
        table.print(System.out);
    }

    /** Runs the chosen scenarios and returns the table (the machine facts go to {@code out} first). */
    public static ResultTable run(BenchmarkConfig options, PrintStream out) throws Exception {
        ResultTable table = new ResultTable();
        long started = System.nanoTime();
        CpuBreakdown wholeRun = CpuBreakdown.start();
        Path kafkaLog = Services.kafkaLogParent(options.kafkaLogDir());
        try (Services services =
                new Services(options.jdbcUrl(), options.rabbitHost(), kafkaLog, options.kafkaInProcess())) {
            out.println("# Outbox for Java benchmarks, " + Instant.now().truncatedTo(ChronoUnit.SECONDS));
            out.println("machine: " + Runtime.getRuntime().availableProcessors() + " cores, " + memory()
                    + ", load average at start " + loadAverage());
            out.println("PostgreSQL: " + postgresVersion(services) + " (schema " + services.schema() + ")");
            out.println(
                    "JDK: " + System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
            out.println("options: " + options.describe());
            out.println("Kafka broker: "
                    + (options.kafkaInProcess()
                            ? "in the benchmark's JVM"
                            : "a JVM of its own (" + String.join(" ", KafkaBrokerProcess.BROKER_JVM_OPTIONS) + ")")
                    + ", log under " + kafkaLog
                    + (kafkaLog.startsWith("/dev/shm")
                            ? " (memory: the broker's disk writes would slow PostgreSQL's WAL flushes on the shared disk)"
                            : ""));
            out.println();
            OutboxTables tables = new OutboxTables(services);
            Brokers brokers = new Brokers(services, options.kafkaProperties());

            CeilingScenario.Result ceiling = null;
            if (options.runs(1)) {
                Log.line("S1 ceiling: the database alone");
                CeilingScenario scenario1 = new CeilingScenario(services, tables, options);
                ceiling = scenario1.run();
                String scenario = "1 ceiling (DB only)";
                table.info(
                        scenario,
                        "SQL of the store's shape, keep sent, best: " + CeilingScenario.config(ceiling),
                        rate(ceiling.keepSentRowsPerSecond()));
                table.detail(scenario, "SQL, keep sent (last run)", scenario1.keepSentCpu());
                table.info(
                        scenario, "SQL of the store's shape, delete on publish", rate(ceiling.deleteRowsPerSecond()));
                table.compare(
                        scenario,
                        "the store's own lease + markPublished, keep sent",
                        rate(ceiling.storeKeepSentRowsPerSecond()),
                        "SQL of the store's shape, keep sent: " + rate(ceiling.keepSentRowsPerSecond()),
                        percent(ceiling.storeKeepSentRowsPerSecond() / ceiling.keepSentRowsPerSecond()));
            }
            double blog = Double.NaN;
            if (options.runs(2)) {
                Log.line("S2 blog baseline");
                blog = new BlogBaselineScenario(services, tables, options).run();
                table.info("2 blog baseline", "per-row sync send + UPDATE, LIMIT 100, Kafka", rate(blog));
            }
            if (options.runs(3)) {
                Log.line("S3 worker drain");
                WorkerDrainScenario scenario3 = new WorkerDrainScenario(services, tables, brokers, options);
                drains(scenario3, scenario3.run(ceiling), ceiling, blog, options, table);
            }
            if (options.runs(4)) {
                Log.line("S4 steady state");
                steady(new SteadyStateScenario(services, tables, brokers, options).run(), options, table);
            }
            if (options.runs(5)) {
                Log.line("S5 producer overhead");
                ProducerOverheadScenario scenario5 = new ProducerOverheadScenario(services, tables, options);
                producers(scenario5.run(), options, table);
                Map<ProducerOverheadScenario.Mode, List<Double>> cpu = scenario5.cpuMicrosPerTransaction();
                table.detail(
                        "5 producer overhead",
                        "producer JVM CPU per tx: alone / +OutboxWriter / +hand INSERT",
                        String.format(
                                Locale.ROOT,
                                "%.0f / %.0f / %.0f us",
                                Stats.median(cpu.get(ProducerOverheadScenario.Mode.BUSINESS_ONLY)),
                                Stats.median(cpu.get(ProducerOverheadScenario.Mode.LIBRARY_APPEND)),
                                Stats.median(cpu.get(ProducerOverheadScenario.Mode.HAND_INSERT))));
            }
            if (options.runs(6)) {
                Log.line("S6 table growth");
                growth(new TableGrowthScenario(services, tables, options).run(), options, table);
            }
            if (options.runs(8)) {
                Log.line("S8 scale-out: relay processes, and threads x batch, each beside the ceiling");
                scaleOut(new ScaleOutScenario(services, tables, brokers, options).run(ceiling), table);
            }
            if (options.runs(7)) {
                Log.line(
                        "S7 long transaction: %d s per run, with and without a held snapshot",
                        options.heldTime().toSeconds());
                longTransaction(new LongTransactionScenario(services, tables, brokers, options).run(), options, table);
            }
            if (options.runs(9)) {
                Log.line(
                        "S9 tail: %d s per run at %s events/s, the broker's floor beside the relay's defaults",
                        options.tailTime().toSeconds(), options.tailRates());
                tail(new TailLatencyScenario(services, tables, brokers, options).run(), table);
            }
            if (options.runs(10)) {
                Log.line(
                        "S10 many outboxes: %s outboxes x %,d events, one worker of many beside one worker per table",
                        options.manyOutboxes(), options.manyEvents());
                ManyOutboxesReport.report(new ManyOutboxesScenario(services, tables, options).run(), table);
            }
        }
        Log.line("done in %.0f s", (System.nanoTime() - started) / 1e9);
        out.printf(
                Locale.ROOT, "whole run: %.0f s, %s%n%n", (System.nanoTime() - started) / 1e9, wholeRun.machineBusy());
        return table;
    }

    private static void drains(
            WorkerDrainScenario scenario3,
            Map<WorkerDrainScenario.Variant, Double> drains,
            CeilingScenario.Result ceiling,
            double blog,
            BenchmarkConfig options,
            ResultTable table) {
        String scenario = "3 worker drain";
        Map<WorkerDrainScenario.Variant, Double> adjacent = scenario3.ratioToAdjacentCeiling();
        for (Map.Entry<WorkerDrainScenario.Variant, Double> entry : drains.entrySet()) {
            WorkerDrainScenario.Variant v = entry.getKey();
            double r = entry.getValue();
            // the targets are set for Kafka; RabbitMQ and no broker are shown beside the same references
            boolean targeted = v.broker() == Brokers.Kind.KAFKA;
            String figure = "worker -> " + v.label() + " (" + relay(options) + ")";
            String value = rate(r);
            table.detail(
                    scenario,
                    v.label() + ": where a tick's time goes (last run, mean per batch)",
                    scenario3.breakdown().get(v));
            table.detail(scenario, v.label() + " (last run)", scenario3.cpu().get(v));
            table.detail(
                    scenario,
                    v.label() + ": the worker's own reads beside the drain",
                    scenario3.gaugesPoll().get(v));
            int before = table.rows().size();
            Double beside = adjacent.get(v);
            if (beside != null) {
                String sameTable = v.layout() == StoreLayout.APPEND_LOG
                        ? "the store's lease + mark alone, drained just before, same table (median of per-run ratios)"
                        : "ceiling SQL drained just before, same table (median of per-run ratios)";
                if (targeted) {
                    table.target(
                            scenario,
                            figure,
                            value,
                            sameTable,
                            percent(beside),
                            ">= " + Math.round(DRAIN_TARGET * 100) + " %",
                            beside >= DRAIN_TARGET,
                            true);
                } else {
                    table.compare(scenario, figure, value, sameTable, percent(beside));
                }
            }
            if (v.layout() == StoreLayout.APPEND_LOG) {
                Double inPlace = drains.get(v.inPlace());
                if (inPlace != null) {
                    table.compare(
                            scenario,
                            figure,
                            value,
                            "the same in place, same run: " + rate(inPlace),
                            times(r / inPlace));
                }
            } else if (ceiling != null) {
                boolean keepSent = v.completion() == CompletionMode.KEEP_SENT;
                double ceil = keepSent ? ceiling.keepSentRowsPerSecond() : ceiling.deleteRowsPerSecond();
                String reference = "1 ceiling, " + (keepSent ? "keep sent" : "delete on publish") + ": " + rate(ceil);
                table.compare(scenario, figure, value, reference, percent(r / ceil));
            }
            if (!Double.isNaN(blog) && targeted) {
                double times = r / blog;
                table.target(
                        scenario,
                        figure,
                        value,
                        "2 blog baseline: " + rate(blog),
                        times(times),
                        ">= 10x",
                        times >= 10,
                        true);
            }
            if (table.rows().size() == before) {
                table.info(scenario, figure, value);
            }
        }
    }

    /** The worker drain's share of the layout's own ceiling, measured beside it, to reach. */
    static final double DRAIN_TARGET = 0.85;

    /** E.g. {@code the library's defaults: 1 thread x 1000}. */
    private static String relay(BenchmarkConfig options) {
        boolean defaults = options.relayThreads() == OutboxWorkerConfig.DEFAULT_RELAY_THREADS
                && options.batchSize() == RelayConfig.DEFAULT_BATCH_SIZE;
        return (defaults ? "the library's defaults: " : "")
                + options.relayThreads()
                + (options.relayThreads() == 1 ? " thread x " : " threads x ")
                + options.batchSize();
    }

    private static void scaleOut(List<ScaleOutScenario.Drain> drains, ResultTable table) {
        String scenario = "8 scale-out (Kafka, keep sent)";
        String reference = "ceiling SQL drained just before, in-place table (median of per-run ratios)";
        Map<ScaleOutScenario.Shape, ScaleOutScenario.Drain> byShape =
                drains.stream().collect(Collectors.toMap(ScaleOutScenario.Drain::shape, drain -> drain));
        for (ScaleOutScenario.Drain drain : drains) {
            ScaleOutScenario.Shape shape = drain.shape();
            table.compare(
                    scenario,
                    "worker -> Kafka, " + shape.label(),
                    rate(drain.rowsPerSecond()),
                    reference,
                    percent(drain.shareOfCeiling()));
        }
        for (ScaleOutScenario.Drain drain : drains) {
            ScaleOutScenario.Shape shape = drain.shape();
            ScaleOutScenario.Drain unordered = byShape.get(shape.unordered());
            if (shape.ordering() != Ordering.Mode.PER_KEY || unordered == null) {
                continue;
            }
            double cost = drain.costAgainst(unordered);
            table.target(
                    scenario,
                    "per-key ordering's cost, " + shape.label(),
                    rate(drain.rowsPerSecond()),
                    "ordering none (median of per-run ratios): " + rate(unordered.rowsPerSecond()),
                    percent(cost),
                    "<= 20 %",
                    cost <= 0.20,
                    true);
        }
        for (StoreLayout layout : StoreLayout.values()) {
            for (Ordering.Mode ordering : Ordering.Mode.values()) {
                List<ScaleOutScenario.Drain> oneProcess = drains.stream()
                        .filter(drain -> drain.shape().processes() == 1
                                && drain.shape().layout() == layout
                                && drain.shape().ordering() == ordering)
                        .toList();
                oneProcess.stream()
                        .filter(drain -> drain.shape().isLibraryDefault())
                        .findFirst()
                        .ifPresent(defaults -> {
                            ScaleOutScenario.Drain best = oneProcess.stream()
                                    .max(Comparator.comparingDouble(ScaleOutScenario.Drain::shareOfCeiling))
                                    .orElse(defaults);
                            table.target(
                                    scenario,
                                    "the library's defaults drain fastest of the choices: "
                                            + defaults.shape().label(),
                                    percent(defaults.shareOfCeiling()) + " of ceiling",
                                    "best: " + best.shape().label() + ", " + percent(best.shareOfCeiling()),
                                    times(defaults.shareOfCeiling() / best.shareOfCeiling()),
                                    "1.00x",
                                    best == defaults,
                                    true);
                        });
            }
        }
    }

    private static void steady(SteadyStateScenario.Result result, BenchmarkConfig options, ResultTable table) {
        String scenario = "4 steady "
                + String.format(
                        Locale.ROOT,
                        "%,d/s %dx%ds",
                        options.steadyRate(),
                        options.runs(),
                        options.steadyTime().toSeconds());
        for (Map.Entry<SteadyStateScenario.WakeUp, List<SteadyStateScenario.Latency>> entry :
                result.latency().entrySet()) {
            SteadyStateScenario.WakeUp w = entry.getKey();
            List<SteadyStateScenario.Latency> runs = entry.getValue();
            SteadyStateScenario.Latency l = SteadyStateScenario.medianByP99(runs);
            String value = latency(l)
                    + (runs.size() < 2
                            ? ""
                            : " (the median run by p99; p99 of each run: "
                                    + runs.stream()
                                            .map(r -> String.format(Locale.ROOT, "%.1f", r.p99Millis()))
                                            .collect(Collectors.joining(" / "))
                                    + " ms)");
            // Flat only if every run was: the backlog of the run that left the most pending is shown.
            SteadyStateScenario.Latency mostPending = runs.stream()
                    .max(Comparator.comparingLong(SteadyStateScenario.Latency::maxPendingSecondHalf))
                    .orElseThrow();
            boolean flat = runs.stream().allMatch(SteadyStateScenario.Latency::flat);
            String backlog = backlog(mostPending, options.steadyRate())
                    + (runs.size() < 2 ? "" : flat ? " in every run" : " in the worst run");
            if (w == SteadyStateScenario.WakeUp.POLLING_ONLY) {
                table.info(scenario, w.display() + ": commit -> consume", value);
                table.info(scenario, w.display() + ": backlog", backlog);
            } else {
                table.target(
                        scenario,
                        w.display() + ": commit -> consume",
                        value,
                        "p99 <= 15 ms",
                        l.p99Millis() <= 15,
                        l.measured() > 0);
                table.target(scenario, w.display() + ": backlog", backlog, "flat at the rate", flat, true);
            }
            // each text names what it measured: "machine busy …", "stop-the-world GC pauses: …", "waiting for a CPU: …"
            for (String diagnostic : List.of(l.cpu(), l.gcPauses(), l.cpuWaits())) {
                table.detail(scenario, w.display() + " (the median run)", diagnostic);
            }
        }
        // The same wake-ups with CPU to spare: how fast the relay's own path is when nothing queues for a core.
        String headroom = "4 steady "
                + String.format(
                        Locale.ROOT,
                        "%,d/s %ds",
                        result.headroomRate(),
                        options.steadyTime().toSeconds());
        for (Map.Entry<SteadyStateScenario.WakeUp, SteadyStateScenario.Latency> entry :
                result.headroom().entrySet()) {
            SteadyStateScenario.Latency l = entry.getValue();
            table.info(
                    headroom,
                    entry.getKey().display() + ": commit -> consume (a quarter of the rate)",
                    latency(l) + "; " + backlog(l, result.headroomRate()));
            for (String diagnostic : List.of(l.cpu(), l.gcPauses(), l.cpuWaits())) {
                table.detail(headroom, entry.getKey().display(), diagnostic);
            }
        }
        SteadyStateScenario.WakeUp defaultWakeUp = switch (PostgresOutboxConfig.DEFAULT_WAKE_UP_MODE) {
            case NOTIFY_AFTER_COMMIT -> SteadyStateScenario.WakeUp.NOTIFY_AFTER_COMMIT;
            case TRIGGER_NOTIFY -> SteadyStateScenario.WakeUp.TRIGGER_NOTIFY;
            case IN_PROCESS -> SteadyStateScenario.WakeUp.IN_PROCESS_SIGNAL;
            case NONE -> SteadyStateScenario.WakeUp.POLLING_ONLY;
        };
        List<Double> polling = result.producerTps().get(SteadyStateScenario.WakeUp.POLLING_ONLY);
        String pollingFigure = SteadyStateScenario.WakeUp.POLLING_ONLY.display() + ": saturated producers ("
                + options.producers() + ")";
        String pollingValue = tx(Stats.median(polling));
        table.info("4 producer cost", pollingFigure, pollingValue);
        for (SteadyStateScenario.WakeUp w : SteadyStateScenario.WakeUp.values()) {
            if (w == SteadyStateScenario.WakeUp.POLLING_ONLY) {
                continue;
            }
            List<Double> tps = result.producerTps().get(w);
            List<Double> costs = new ArrayList<>();
            for (int i = 0; i < tps.size(); i++) {
                costs.add(1 - tps.get(i) / polling.get(i));
            }
            double cost = Stats.median(costs);
            // The in-process signal does no database work: its "cost" is the measurement's own noise.
            String figure = w.display() + ": saturated producers"
                    + (w == defaultWakeUp ? " (the DEFAULT)" : "")
                    + (w == SteadyStateScenario.WakeUp.IN_PROCESS_SIGNAL ? " (no database work: the noise floor)" : "");
            String value = tx(Stats.median(tps));
            String reference = "polling only, the same rounds: " + pollingValue;
            String ratio = "cost " + percent(cost) + " ± " + percent(Stats.medianStandardError(costs));
            table.detail(
                    "4 producer cost",
                    w.display() + ": cost per round",
                    "median of " + costs.size()
                            + " rounds, the middle half " + percent(Stats.quantile(costs, 0.25)) + " to "
                            + percent(Stats.quantile(costs, 0.75)));
            if (w == defaultWakeUp) {
                table.target("4 producer cost", figure, value, reference, ratio, "< 5 %", cost < 0.05, true);
            } else {
                table.compare("4 producer cost", figure, value, reference, ratio);
            }
        }
    }

    private static String latency(SteadyStateScenario.Latency l) {
        return String.format(
                Locale.ROOT, "p50 %.1f / p95 %.1f / p99 %.1f ms", l.p50Millis(), l.p95Millis(), l.p99Millis());
    }

    private static String backlog(SteadyStateScenario.Latency l, int rate) {
        boolean reached = l.achievedRate() >= 0.95 * rate;
        return String.format(
                Locale.ROOT,
                "%s (max pending %,d in 2nd half, %,d missing; producers reached %,.0f/s)",
                !reached ? "rate not reached" : l.flat() ? "flat" : "growing",
                l.maxPendingSecondHalf(),
                l.missing(),
                l.achievedRate());
    }

    /** Scenario 5's rows: the library's transactions beside the hand-written INSERT's of the same rounds. */
    static void producers(
            Map<ProducerOverheadScenario.Mode, List<Double>> tps, BenchmarkConfig options, ResultTable table) {
        String scenario = "5 producer overhead";
        List<Double> business = tps.get(ProducerOverheadScenario.Mode.BUSINESS_ONLY);
        List<Double> library = tps.get(ProducerOverheadScenario.Mode.LIBRARY_APPEND);
        List<Double> hand = tps.get(ProducerOverheadScenario.Mode.HAND_INSERT);
        table.info(scenario, "business tx alone (" + options.producers() + " producers)", tx(Stats.median(business)));
        List<Double> overTx = new ArrayList<>();
        List<Double> overAppend = new ArrayList<>();
        for (int i = 0; i < library.size(); i++) {
            overTx.add(hand.get(i) / library.get(i) - 1);
            double appendLib = 1 / library.get(i) - 1 / business.get(i);
            double appendHand = 1 / hand.get(i) - 1 / business.get(i);
            overAppend.add(appendLib / appendHand - 1);
        }
        double over = Stats.median(overTx);
        String floor = "+ the same row by a hand-written INSERT: " + tx(Stats.median(hand));
        table.target(
                scenario,
                "+ 1 event via OutboxWriter",
                tx(Stats.median(library)),
                floor,
                "tx time " + signedPercent(over) + " ± " + percent(Stats.medianStandardError(overTx)) + " (median of "
                        + overTx.size() + " rounds)",
                "<= +5 %",
                over <= 0.05,
                true);
        table.compare(
                scenario,
                "the append's own time (tx time less the business tx's)",
                "",
                "the hand-written INSERT's",
                signedPercent(Stats.median(overAppend)));
    }

    /** Scenario 6's row: the lease on the grown table beside the lease on the empty one, per run. */
    static void growth(TableGrowthScenario.Result result, BenchmarkConfig options, ResultTable table) {
        String scenario = "6 table growth";
        String empty = String.format(Locale.ROOT, "%.2f ms", Stats.median(result.emptyMillis()));
        List<Double> ratios = new ArrayList<>();
        for (int i = 0; i < result.emptyMillis().size(); i++) {
            ratios.add(result.grownMillis().get(i) / result.emptyMillis().get(i));
        }
        double ratio = Stats.median(ratios);
        table.target(
                scenario,
                String.format(Locale.ROOT, "lease of %d, %,d sent rows", options.batchSize(), result.sentRows()),
                String.format(Locale.ROOT, "%.2f ms", Stats.median(result.grownMillis())),
                "lease of " + options.batchSize() + ", 0 sent rows: " + empty,
                times(ratio),
                "<= 2x",
                ratio <= 2,
                true);
    }

    /**
     * Scenario 7's rows, per completion mode and ordering: each interval with the snapshot held beside
     * the same interval without it, then the whole run against the goal (p99 at most twice, at least
     * 80 % of the events delivered while producing, kept up in every interval).
     */
    static void longTransaction(
            List<LongTransactionScenario.Comparison> comparisons, BenchmarkConfig options, ResultTable table) {
        long seconds = options.heldInterval().toSeconds();
        String unit = seconds == 60 ? "minute" : seconds + " s";
        for (LongTransactionScenario.Comparison c : comparisons) {
            String scenario = String.format(
                    Locale.ROOT,
                    "7 long tx, %s, %,d/s %ds",
                    c.label(),
                    options.steadyRate(),
                    options.heldTime().toSeconds());
            LongTransactionScenario.Run held = c.held();
            LongTransactionScenario.Run free = c.notHeld();
            // without a snapshot of its own a run on a shared server may still meet another session's
            table.detail(scenario, "xmin horizon when the producers stopped, no snapshot held", free.horizonAtEnd());
            table.detail(scenario, "xmin horizon when the producers stopped, snapshot held", held.horizonAtEnd());
            int n = Math.max(held.minutes().size(), free.minutes().size());
            for (int i = 0; i < n; i++) {
                MinuteStatsRow h = MinuteStatsRow.of(held.minutes(), i);
                MinuteStatsRow f = MinuteStatsRow.of(free.minutes(), i);
                table.compare(
                        scenario,
                        unit + " " + (i + 1) + ": snapshot held",
                        h.text(),
                        "no snapshot held: " + f.text(),
                        h.ratioTo(f));
            }
            double p99Ratio = held.p99Millis() / free.p99Millis();
            table.target(
                    scenario,
                    "p99 over the run: snapshot held",
                    millis(held.p99Millis()) + (held.censored() > 0 ? " (at least)" : ""),
                    "no snapshot held: " + millis(free.p99Millis()),
                    times(p99Ratio),
                    "<= 2x",
                    p99Ratio <= 2,
                    !Double.isNaN(p99Ratio));
            double drain = held.deliveredShare() / free.deliveredShare();
            table.target(
                    scenario,
                    "delivered while producing: snapshot held",
                    percent(held.deliveredShare()) + " of " + String.format(Locale.ROOT, "%,d", held.committed()),
                    "no snapshot held: " + percent(free.deliveredShare()) + " of "
                            + String.format(Locale.ROOT, "%,d", free.committed()),
                    percent(drain),
                    ">= 80 %",
                    drain >= 0.8,
                    !Double.isNaN(drain));
            table.target(
                    scenario,
                    "kept up in every " + unit + ": snapshot held",
                    keptUp(held, unit),
                    "no snapshot held: " + keptUp(free, unit),
                    "",
                    "every " + unit,
                    held.firstBehind() < 0,
                    !held.minutes().isEmpty());
        }
        layoutsSideBySide(comparisons, options, table);
    }

    /**
     * For each completion mode and ordering measured in both layouts, the append-only log's
     * held-to-not-held ratios beside the in-place layout's.
     */
    private static void layoutsSideBySide(
            List<LongTransactionScenario.Comparison> comparisons, BenchmarkConfig options, ResultTable table) {
        for (LongTransactionScenario.Comparison log : comparisons) {
            if (log.layout() != StoreLayout.APPEND_LOG) {
                continue;
            }
            comparisons.stream()
                    .filter(c -> c.layout() == StoreLayout.IN_PLACE
                            && c.completion() == log.completion()
                            && c.ordering() == log.ordering())
                    .findFirst()
                    .ifPresent(inPlace -> {
                        String scenario = String.format(
                                Locale.ROOT,
                                "7 long tx, append log vs in place, %s, %,d/s %ds",
                                log.setting(),
                                options.steadyRate(),
                                options.heldTime().toSeconds());
                        double logP99 = log.held().p99Millis() / log.notHeld().p99Millis();
                        double inPlaceP99 =
                                inPlace.held().p99Millis() / inPlace.notHeld().p99Millis();
                        table.compare(
                                scenario,
                                "p99 snapshot held / not held",
                                "append log: " + times(logP99),
                                "in place: " + times(inPlaceP99),
                                times(logP99 / inPlaceP99));
                        double logDrain =
                                log.held().deliveredShare() / log.notHeld().deliveredShare();
                        double inPlaceDrain = inPlace.held().deliveredShare()
                                / inPlace.notHeld().deliveredShare();
                        table.compare(
                                scenario,
                                "delivered while producing, snapshot held / not held",
                                "append log: " + percent(logDrain),
                                "in place: " + percent(inPlaceDrain),
                                times(logDrain / inPlaceDrain));
                    });
        }
    }

    /** One interval's figures as a cell, and its ratios to the same interval of another run. */
    private record MinuteStatsRow(MinuteStats.Minute minute) {

        static MinuteStatsRow of(List<MinuteStats.Minute> minutes, int i) {
            return new MinuteStatsRow(i < minutes.size() ? minutes.get(i) : null);
        }

        String text() {
            return minute == null ? "n/a" : BenchmarkMain.minute(minute);
        }

        String ratioTo(MinuteStatsRow other) {
            if (minute == null || other.minute == null) {
                return "";
            }
            MinuteStats.Minute o = other.minute;
            return "p99 " + times(minute.p99Millis() / o.p99Millis()) + ", lease "
                    + times(minute.leaseMillis() / o.leaseMillis()) + ", entries/scan "
                    + times(minute.entriesPerScan() / o.entriesPerScan());
        }
    }

    /** The library's defaults' p99 in every interval within this many times the floor's p99 over its run. */
    static final double TAIL_TARGET = 1.5;

    private static void tail(Map<Integer, List<TailLatencyScenario.Run>> runs, ResultTable table) {
        for (Map.Entry<Integer, List<TailLatencyScenario.Run>> entry : runs.entrySet()) {
            String scenario = String.format(Locale.ROOT, "9 tail %,d/s", entry.getKey());
            TailLatencyScenario.Run floor = entry.getValue().stream()
                    .filter(run -> run.variant().floor())
                    .findFirst()
                    .orElseThrow();
            String floorFigure = String.format(
                    Locale.ROOT,
                    "%s: p50 %.1f / p99 %.1f ms",
                    floor.variant().label(),
                    floor.p50Millis(),
                    floor.p99Millis());
            for (TailLatencyScenario.Run run : entry.getValue()) {
                String value = String.format(
                                Locale.ROOT,
                                "p50 %.1f / p99 %.1f ms; p99 per interval %s ms%s",
                                run.p50Millis(),
                                run.p99Millis(),
                                run.minutes().stream()
                                        .map(m -> String.format(
                                                Locale.ROOT, "%s%.1f", m.censored() > 0 ? ">= " : "", m.p99Millis()))
                                        .collect(Collectors.joining(" / ")),
                                run.missing() > 0 ? String.format(Locale.ROOT, " (%,d missing)", run.missing()) : "")
                        + (reachedRate(run)
                                ? ""
                                : String.format(Locale.ROOT, "; producers reached only %,.0f/s", run.achievedRate()));
                if (run.variant().floor()) {
                    table.info(scenario, run.variant().label() + ": commit -> consume", value);
                } else {
                    String ratio = String.format(
                            Locale.ROOT,
                            "p50 %s, p99 %s, worst interval's p99 %s",
                            TailLatencyScenario.ratio(run.p50Millis(), floor.p50Millis()),
                            TailLatencyScenario.ratio(run.p99Millis(), floor.p99Millis()),
                            TailLatencyScenario.ratio(run.worstMinuteP99(), floor.p99Millis()));
                    String figure = run.variant().label() + ": commit -> consume";
                    if (run.variant().defaults()) {
                        boolean met = run.missing() == 0 && run.worstMinuteP99() <= TAIL_TARGET * floor.p99Millis();
                        table.target(
                                scenario,
                                figure,
                                value,
                                floorFigure,
                                ratio,
                                String.format(Locale.ROOT, "p99 <= %.1fx floor in every interval", TAIL_TARGET),
                                met,
                                reachedRate(run) && reachedRate(floor));
                    } else {
                        table.compare(scenario, figure, value, floorFigure, ratio);
                    }
                    table.detail(
                            scenario,
                            run.variant().label() + ", where the time went",
                            run.stages().describe());
                }
                table.detail(scenario, run.variant().label(), run.cpu() + "; " + run.gcPauses());
            }
        }
    }

    /** Whether the producers kept 95 % of the asked rate: a figure of a starved machine measures the machine. */
    private static boolean reachedRate(TailLatencyScenario.Run run) {
        return run.achievedRate() >= 0.95 * run.rate();
    }

    /**
     * One interval, e.g. {@code p50 6.1 / p99 14.0 ms; kept up (backlog 212); 48,120 dead; 3.1 entries/scan;
     * lease 2.4 ms (max 9.0, 410 leases)}; a p99 with events not delivered at the end is a lower bound.
     */
    static String minute(MinuteStats.Minute m) {
        return String.format(
                Locale.ROOT,
                "p50 %.1f / p99 %s%.1f ms; %s (backlog %,d); %,d dead; %.1f entries/scan; "
                        + "lease %.1f ms (max %.1f, %,d leases)",
                m.p50Millis(),
                m.censored() > 0 ? ">= " : "",
                m.p99Millis(),
                m.keptUp() ? "kept up" : "BEHIND",
                m.pendingAtEnd(),
                m.deadTuples(),
                m.entriesPerScan(),
                m.leaseMillis(),
                m.leaseMaxMillis(),
                m.leases());
    }

    private static String keptUp(LongTransactionScenario.Run run, String unit) {
        int first = run.firstBehind();
        return run.minutes().isEmpty() ? "n/a" : first < 0 ? "yes" : "no, behind from " + unit + " " + (first + 1);
    }

    private static String millis(double value) {
        return String.format(Locale.ROOT, "%.1f ms", value);
    }

    private static String rate(double rowsPerSecond) {
        return String.format(Locale.ROOT, "%,.0f rows/s", rowsPerSecond);
    }

    private static String tx(double perSecond) {
        return String.format(Locale.ROOT, "%,.0f tx/s", perSecond);
    }

    private static String percent(double share) {
        return String.format(Locale.ROOT, "%.1f %%", share * 100);
    }

    private static String signedPercent(double share) {
        return String.format(Locale.ROOT, "%+.1f %%", share * 100);
    }

    private static String times(double ratio) {
        return String.format(Locale.ROOT, "%.2fx", ratio);
    }

    private static String memory() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemTotal:")) {
                    long kb = Long.parseLong(line.replaceAll("[^0-9]", ""));
                    return String.format(Locale.ROOT, "%.1f GiB RAM", kb / 1024.0 / 1024.0);
                }
            }
        } catch (Exception ignored) {
            // not Linux
        }
        return "memory unknown";
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (Exception e) {
            return "unknown";
        }
    }

    private static String postgresVersion(Services services) throws Exception {
        try (Connection connection = services.dataSource().getConnection();
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SHOW server_version")) {
            rs.next();
            return rs.getString(1);
        }
    }

    /**
     * slf4j-simple at WARN, on standard error, and no jOOQ banner, unless set on the command line:
     * for this JVM, the relay JVMs of scenario 8 and the broker's ({@link KafkaBrokerProcess}), whose
     * standard output carries their ready lines.
     */
    public static void quietLogging() {
        // the library's INFO lines (worker started/stopped, publisher started) would bury the figures;
        // warnings and errors still show.
        setIfAbsent("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        setIfAbsent("org.slf4j.simpleLogger.logFile", "System.err");
        setIfAbsent("org.jooq.no-logo", "true");
        setIfAbsent("org.jooq.no-tips", "true");
    }

    private static void setIfAbsent(String key, String value) {
        if (System.getProperty(key) == null) {
            System.setProperty(key, value);
        }
    }
}
