package dev.outboxjava.benchmarks;

import dev.outboxjava.benchmarks.internal.Brokers;
import dev.outboxjava.benchmarks.internal.CpuBreakdown;
import dev.outboxjava.benchmarks.internal.GcPauses;
import dev.outboxjava.benchmarks.internal.KafkaBrokerProcess;
import dev.outboxjava.benchmarks.internal.OutboxTables;
import dev.outboxjava.benchmarks.internal.Services;
import dev.outboxjava.benchmarks.internal.Stats;
import dev.outboxjava.core.InvalidConfigurationException;
import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.postgres.PostgresOutboxConfig;
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
 * Runs every scenario against the real services and prints one table (standard output); progress
 * goes to standard error. {@code java -jar benchmarks/target/outbox-benchmarks.jar [--quick] [--help]}.
 */
public final class BenchmarkMain {

    private BenchmarkMain() {
    }

    public static void main(String[] args) throws Exception {
        quietLogging();
        GcPauses.recordThisJvm();
        if (List.of(args).contains("--help") || List.of(args).contains("-h")) {
            System.out.println(BenchmarkOptions.usage());
            return;
        }
        BenchmarkOptions options;
        try {
            options = BenchmarkOptions.parse(args);
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
    public static ResultTable run(BenchmarkOptions options, PrintStream out) throws Exception {
        ResultTable table = new ResultTable();
        long started = System.nanoTime();
        CpuBreakdown wholeRun = CpuBreakdown.start();
        Path kafkaLog = Services.kafkaLogParent(options.kafkaLogDir());
        try (Services services = new Services(options.jdbcUrl(), options.rabbitHost(), kafkaLog,
                options.kafkaInProcess())) {
            out.println("# Outbox for Java benchmarks, " + Instant.now().truncatedTo(ChronoUnit.SECONDS));
            out.println("machine: " + Runtime.getRuntime().availableProcessors() + " cores, " + memory()
                    + ", load average at start " + loadAverage());
            out.println("PostgreSQL: " + postgresVersion(services) + " (schema " + services.schema() + ")");
            out.println("JDK: " + System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
            out.println("options: " + options.describe());
            out.println("Kafka broker: " + (options.kafkaInProcess() ? "in the benchmark's JVM"
                    : "a JVM of its own (" + String.join(" ", KafkaBrokerProcess.BROKER_JVM_OPTIONS) + ")")
                    + ", log under " + kafkaLog + (kafkaLog.startsWith("/dev/shm")
                    ? " (memory: the broker's disk writes would slow PostgreSQL's WAL flushes on the shared disk)" : ""));
            out.println();
            OutboxTables tables = new OutboxTables(services);
            Brokers brokers = new Brokers(services, options.kafkaProperties());

            CeilingScenario.Result ceiling = null;
            if (options.runs(1)) {
                Log.line("S1 ceiling: the database alone");
                CeilingScenario scenario1 = new CeilingScenario(services, tables, options);
                ceiling = scenario1.run();
                table.info("1 ceiling (DB only)", "SQL of the store's shape, keep sent, best: "
                        + CeilingScenario.config(ceiling), rate(ceiling.keepSentRowsPerSecond()));
                table.info("1 ceiling (DB only)", "  where the CPU goes (last keep-sent run)", scenario1.keepSentCpu());
                table.info("1 ceiling (DB only)", "SQL of the store's shape, delete on publish",
                        rate(ceiling.deleteRowsPerSecond()));
                table.info("1 ceiling (DB only)", "the store's own lease + markPublished, keep sent",
                        rate(ceiling.storeKeepSentRowsPerSecond()));
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
                Map<WorkerDrainScenario.Variant, Double> drains = scenario3.run(ceiling);
                Map<WorkerDrainScenario.Variant, Double> adjacent = scenario3.ratioToAdjacentCeiling();
                for (Map.Entry<WorkerDrainScenario.Variant, Double> entry : drains.entrySet()) {
                    WorkerDrainScenario.Variant v = entry.getKey();
                    double r = entry.getValue();
                    String figure = "worker -> " + v.label() + " (" + options.relayThreads() + " threads x "
                            + options.batchSize() + ")";
                    table.info("3 this library", figure, rate(r));
                    table.info("3 this library", "  where a tick's time goes (last run, mean per batch)",
                            scenario3.breakdown().get(v));
                    table.info("3 this library", "  where the CPU goes (last run)", scenario3.cpu().get(v));
                    if (ceiling != null) {
                        double ceil = v.completion() == CompletionMode.KEEP_SENT ? ceiling.keepSentRowsPerSecond()
                                : ceiling.deleteRowsPerSecond();
                        double share = r / ceil;
                        if (v.broker() == Brokers.Kind.KAFKA) {
                            table.target("3 vs 1", v.label() + " / ceiling of the same mode", percent(share),
                                    ">= 70 %", share >= 0.70, true);
                        } else {
                            table.info("3 vs 1", v.label() + " / ceiling of the same mode", percent(share));
                        }
                        Double beside = adjacent.get(v);
                        if (beside != null && v.broker() == Brokers.Kind.KAFKA) {
                            table.target("3 vs 1", v.label() + " / ceiling SQL drained just before, same table",
                                    percent(beside), ">= 70 %", beside >= 0.70, true);
                        } else if (beside != null) {
                            table.info("3 vs 1", v.label() + " / ceiling SQL drained just before, same table",
                                    percent(beside));
                        }
                    }
                    if (!Double.isNaN(blog) && v.broker() == Brokers.Kind.KAFKA) {
                        double times = r / blog;
                        table.target("3 vs 2", v.label() + " / blog baseline", times(times), ">= 10x",
                                times >= 10, true);
                    }
                }
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
                table.info("5 producer overhead", "producer JVM CPU per tx: alone / +OutboxWriter / +hand INSERT",
                        String.format(Locale.ROOT, "%.0f / %.0f / %.0f us",
                                Stats.median(cpu.get(ProducerOverheadScenario.Mode.BUSINESS_ONLY)),
                                Stats.median(cpu.get(ProducerOverheadScenario.Mode.LIBRARY_APPEND)),
                                Stats.median(cpu.get(ProducerOverheadScenario.Mode.HAND_INSERT))));
            }
            if (options.runs(6)) {
                Log.line("S6 table growth");
                growth(new TableGrowthScenario(services, tables, options).run(), options, table);
            }
        }
        Log.line("done in %.0f s", (System.nanoTime() - started) / 1e9);
        out.printf(Locale.ROOT, "whole run: %.0f s, %s%n%n", (System.nanoTime() - started) / 1e9, wholeRun.machineBusy());
        return table;
    }

    private static void steady(SteadyStateScenario.Result result, BenchmarkOptions options, ResultTable table) {
        String scenario = "4 steady " + String.format(Locale.ROOT, "%,d/s %dx%ds", options.steadyRate(),
                options.runs(), options.steadyTime().toSeconds());
        for (Map.Entry<SteadyStateScenario.WakeUp, List<SteadyStateScenario.Latency>> entry
                : result.latency().entrySet()) {
            SteadyStateScenario.WakeUp w = entry.getKey();
            List<SteadyStateScenario.Latency> runs = entry.getValue();
            SteadyStateScenario.Latency l = SteadyStateScenario.medianByP99(runs);
            String value = latency(l) + (runs.size() < 2 ? "" : " (the median run by p99; p99 of each run: "
                    + runs.stream().map(r -> String.format(Locale.ROOT, "%.1f", r.p99Millis()))
                            .collect(Collectors.joining(" / ")) + " ms)");
            // Flat only if every run was: the backlog of the run that left the most pending is shown.
            SteadyStateScenario.Latency mostPending = runs.stream()
                    .max(Comparator.comparingLong(SteadyStateScenario.Latency::maxPendingSecondHalf)).orElseThrow();
            boolean flat = runs.stream().allMatch(SteadyStateScenario.Latency::flat);
            String backlog = backlog(mostPending, options.steadyRate()) + (runs.size() < 2 ? ""
                    : flat ? " in every run" : " in the worst run");
            if (w == SteadyStateScenario.WakeUp.POLLING_ONLY) {
                table.info(scenario, w.display() + ": commit -> consume", value);
                table.info(scenario, w.display() + ": backlog", backlog);
            } else {
                table.target(scenario, w.display() + ": commit -> consume", value, "p99 <= 15 ms",
                        l.p99Millis() <= 15, l.measured() > 0);
                table.target(scenario, w.display() + ": backlog", backlog, "flat at the rate", flat, true);
            }
            table.info(scenario, "  where the CPU goes (the median run)", l.cpu());
            table.info(scenario, "  GC pauses (the median run)", l.gcPauses());
            table.info(scenario, "  waiting for a CPU (the median run)", l.cpuWaits());
        }
        // The same wake-ups with CPU to spare: how fast the relay's own path is when nothing queues for a core.
        String headroom = "4 steady " + String.format(Locale.ROOT, "%,d/s %ds", result.headroomRate(),
                options.steadyTime().toSeconds());
        for (Map.Entry<SteadyStateScenario.WakeUp, SteadyStateScenario.Latency> entry : result.headroom().entrySet()) {
            SteadyStateScenario.Latency l = entry.getValue();
            table.info(headroom, entry.getKey().display() + ": commit -> consume (a quarter of the rate)",
                    latency(l) + "; " + backlog(l, result.headroomRate()));
            table.info(headroom, "  where the CPU goes", l.cpu());
            table.info(headroom, "  GC pauses", l.gcPauses());
            table.info(headroom, "  waiting for a CPU", l.cpuWaits());
        }
        SteadyStateScenario.WakeUp defaultWakeUp = switch (PostgresOutboxConfig.DEFAULT_WAKE_UP_MODE) {
            case NOTIFY_AFTER_COMMIT -> SteadyStateScenario.WakeUp.NOTIFY_AFTER_COMMIT;
            case TRIGGER_NOTIFY -> SteadyStateScenario.WakeUp.TRIGGER_NOTIFY;
            case NONE -> SteadyStateScenario.WakeUp.POLLING_ONLY;
        };
        List<Double> polling = result.producerTps().get(SteadyStateScenario.WakeUp.POLLING_ONLY);
        for (SteadyStateScenario.WakeUp w : SteadyStateScenario.WakeUp.values()) {
            List<Double> tps = result.producerTps().get(w);
            String value = rate(Stats.median(tps)).replace("rows/s", "tx/s");
            if (w == SteadyStateScenario.WakeUp.POLLING_ONLY) {
                table.info("4 producer cost", w.display() + ": saturated producers (" + options.producers() + ")",
                        value);
                continue;
            }
            List<Double> costs = new ArrayList<>();
            for (int i = 0; i < tps.size(); i++) {
                costs.add(1 - tps.get(i) / polling.get(i));
            }
            double cost = Stats.median(costs);
            // The in-process signal does no database work: its "cost" is the measurement's own noise.
            String figure = w.display() + ": producer throughput lost vs polling"
                    + (w == defaultWakeUp ? " (the DEFAULT)" : "")
                    + (w == SteadyStateScenario.WakeUp.IN_PROCESS_SIGNAL ? " (no database work: the noise floor)" : "");
            String v = value + ", cost " + percent(cost) + " ± " + percent(Stats.medianStandardError(costs))
                    + " (median of " + costs.size() + " rounds, the middle half " + percent(Stats.quantile(costs, 0.25))
                    + " to " + percent(Stats.quantile(costs, 0.75)) + ")";
            if (w == defaultWakeUp) {
                table.target("4 producer cost", figure, v, "< 5 %", cost < 0.05, true);
            } else {
                table.info("4 producer cost", figure, v);
            }
        }
    }

    private static String latency(SteadyStateScenario.Latency l) {
        return String.format(Locale.ROOT, "p50 %.1f / p95 %.1f / p99 %.1f ms", l.p50Millis(), l.p95Millis(),
                l.p99Millis());
    }

    private static String backlog(SteadyStateScenario.Latency l, int rate) {
        boolean reached = l.achievedRate() >= 0.95 * rate;
        return String.format(Locale.ROOT, "%s (max pending %,d in 2nd half, %,d missing; producers reached %,.0f/s)",
                !reached ? "rate not reached" : l.flat() ? "flat" : "growing", l.maxPendingSecondHalf(), l.missing(),
                l.achievedRate());
    }

    private static void producers(Map<ProducerOverheadScenario.Mode, List<Double>> tps, BenchmarkOptions options,
            ResultTable table) {
        String scenario = "5 producer overhead";
        List<Double> business = tps.get(ProducerOverheadScenario.Mode.BUSINESS_ONLY);
        List<Double> library = tps.get(ProducerOverheadScenario.Mode.LIBRARY_APPEND);
        List<Double> hand = tps.get(ProducerOverheadScenario.Mode.HAND_INSERT);
        table.info(scenario, "business tx alone (" + options.producers() + " producers)", tx(Stats.median(business)));
        table.info(scenario, "+ 1 event via OutboxWriter", tx(Stats.median(library)));
        table.info(scenario, "+ same row, hand-written INSERT (floor)", tx(Stats.median(hand)));
        List<Double> overTx = new ArrayList<>();
        List<Double> overAppend = new ArrayList<>();
        for (int i = 0; i < library.size(); i++) {
            overTx.add(hand.get(i) / library.get(i) - 1);
            double appendLib = 1 / library.get(i) - 1 / business.get(i);
            double appendHand = 1 / hand.get(i) - 1 / business.get(i);
            overAppend.add(appendLib / appendHand - 1);
        }
        double over = Stats.median(overTx);
        table.target(scenario, "library tx time over the floor's", percent(over) + " ± "
                + percent(Stats.medianStandardError(overTx)) + " (median of " + overTx.size() + " rounds)", "<= 5 %",
                over <= 0.05, true);
        table.info(scenario, "library append's own time over the hand INSERT's", percent(Stats.median(overAppend)));
    }

    private static void growth(TableGrowthScenario.Result result, BenchmarkOptions options, ResultTable table) {
        String scenario = "6 table growth";
        table.info(scenario, "lease of " + options.batchSize() + ", 0 sent rows",
                String.format(Locale.ROOT, "%.2f ms", Stats.median(result.emptyMillis())));
        table.info(scenario, String.format(Locale.ROOT, "lease of %d, %,d sent rows", options.batchSize(),
                result.sentRows()), String.format(Locale.ROOT, "%.2f ms", Stats.median(result.grownMillis())));
        List<Double> ratios = new ArrayList<>();
        for (int i = 0; i < result.emptyMillis().size(); i++) {
            ratios.add(result.grownMillis().get(i) / result.emptyMillis().get(i));
        }
        double ratio = Stats.median(ratios);
        table.target(scenario, String.format(Locale.ROOT, "with %,d sent / empty", result.sentRows()), times(ratio),
                "<= 2x", ratio <= 2, true);
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
     * for this JVM and the broker's ({@link KafkaBrokerProcess}), whose standard output carries its
     * ready line.
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
