package dev.outboxjava.benchmarks;

import dev.outboxjava.benchmarks.internal.OutboxTables;
import dev.outboxjava.core.InvalidConfigurationException;
import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.core.relay.RelayConfig;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.StoreLayout;
import dev.outboxjava.worker.OutboxWorkerConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What one benchmark run does, from the command line. {@link #ofDefaults()} is the full size the
 * targets are set for (the steady state's 60 s per wake-up as three runs of 20 s, whose median is
 * reported); {@code --quick} is the same shape, smaller and shorter.
 *
 * @param runs          repetitions per figure; each printed figure is the median, each ratio the median of per-run ratios
 * @param backlog       events in the backlog that scenarios 1–3 and 8 drain
 * @param searchBacklog events per configuration while scenario 1 looks for its best batch size and drainers
 * @param drainWindow   a drain (scenarios 1–3 and 8) stops when the backlog is empty or after this long; the
 *                      figure is rows marked per second either way
 * @param relayThreads  the worker's relay threads in scenarios 3 and 4 (scenario 7 has its own)
 * @param batchSize     the worker's batch size in scenarios 3 and 4 (and the lease size of scenario 6)
 * @param steadyTime    how long producers commit in one run of scenario 4, per wake-up choice
 * @param steadyRate    events per second the producers commit in scenario 4
 * @param producerTime  sixteen phases of saturated producers: how often they switch what they do (scenarios 4 and 5)
 * @param producers     producer client threads (scenarios 4 and 5)
 * @param sentRows      sent rows loaded for scenario 6
 * @param leasesPerRun  leases timed per table per run in scenario 6
 * @param scenarios     which scenarios run (1–10; by default all but 7, 9 and 10)
 * @param jdbcUrl       the PostgreSQL database (user postgres, trust authentication)
 * @param rabbitHost    the RabbitMQ host (port 5672, guest/guest)
 * @param kafkaProperties producer properties set on the relay's Kafka publisher over its defaults
 * @param kafkaLogDir   where the benchmark's Kafka broker keeps its log; empty: {@code /dev/shm} (memory)
 *                      when it has {@value #MEMORY_LOG_MIN_FREE_GIB} GiB free, else the temporary directory
 * @param kafkaInProcess whether the Kafka broker runs in the benchmark's JVM instead of a JVM of its own
 * @param heldTime      how long producers commit in each run of scenario 7 (held snapshot and not)
 * @param heldInterval  scenario 7 reports per interval of this length (a minute by default)
 * @param heldCompletions the completion modes scenario 7 measures
 * @param heldOrderings the orderings scenario 7 measures
 * @param heldLayouts   the store layouts scenario 7 measures, each with and without the held snapshot
 * @param heldThreads   scenario 7's relay threads (the library's default unless set)
 * @param heldBatch     scenario 7's batch size; 0: the library's default for the ordering measured
 * @param drainLayouts  the store layouts scenario 3 drains to Kafka and to no broker (RabbitMQ: the in-place
 *                      layout alone), each as its own variant of the same run
 * @param scaleLayouts  the store layouts scenario 8's relay processes drain (the ceiling's SQL drains an in-place
 *                      table either way); by default the library's default layout
 * @param scaleKeys     distinct keys of scenario 8's backlog, written round-robin: per key, the events in flight
 *                      at once can be no more than the keys
 * @param scaleThreads  relay threads of each of scenario 8's relay processes in its 1, 2 and 4 process shapes (the
 *                      library's default unless set)
 * @param tailTime      how long producers commit in each run of scenario 9 (per variant and rate)
 * @param tailInterval  scenario 9 reports per interval of this length (a minute by default)
 * @param tailRates     the rates scenario 9 measures, events per second
 * @param manyOutboxes  the numbers of outboxes (tenant schemas) scenario 10 drains and idles, by one worker of
 *                      many outboxes and by one worker per table
 * @param manyEvents    scenario 10's backlog per outbox
 * @param manyIdleTime  how long scenario 10 counts the queries of the idle relays, every outbox empty
 */
public record BenchmarkConfig(
        int runs,
        int backlog,
        int searchBacklog,
        Duration drainWindow,
        int relayThreads,
        int batchSize,
        Duration steadyTime,
        int steadyRate,
        Duration producerTime,
        int producers,
        long sentRows,
        int leasesPerRun,
        Set<Integer> scenarios,
        String jdbcUrl,
        String rabbitHost,
        Map<String, String> kafkaProperties,
        String kafkaLogDir,
        boolean kafkaInProcess,
        Duration heldTime,
        Duration heldInterval,
        List<CompletionMode> heldCompletions,
        List<Ordering.Mode> heldOrderings,
        List<StoreLayout> heldLayouts,
        int heldThreads,
        int heldBatch,
        List<StoreLayout> drainLayouts,
        List<StoreLayout> scaleLayouts,
        int scaleKeys,
        int scaleThreads,
        Duration tailTime,
        Duration tailInterval,
        List<Integer> tailRates,
        List<Integer> manyOutboxes,
        int manyEvents,
        Duration manyIdleTime) {

    /** Free space {@code /dev/shm} needs to hold the in-process broker's log of a full run (about 3 GB). */
    public static final int MEMORY_LOG_MIN_FREE_GIB = 8;

    /** The default database. */
    public static final String DEFAULT_JDBC_URL = "jdbc:postgresql://127.0.0.1:5432/test";

    /** The full run: the sizes the targets are set for. */
    public static BenchmarkConfig ofDefaults() {
        return new Values().toOptions();
    }

    /** A smaller, shorter run with the same shape ({@code --quick}). */
    public static BenchmarkConfig quick() {
        return quickValues().toOptions();
    }

    private static Values quickValues() {
        Values v = new Values();
        v.runs = 1;
        v.backlog = 50_000;
        v.searchBacklog = 20_000;
        v.drainWindow = Duration.ofSeconds(4);
        v.steadyTime = Duration.ofSeconds(15);
        v.producerTime = Duration.ofSeconds(3);
        v.sentRows = 1_000_000L;
        v.heldTime = Duration.ofSeconds(60);
        v.heldInterval = Duration.ofSeconds(10);
        v.tailTime = Duration.ofSeconds(30);
        v.tailInterval = Duration.ofSeconds(10);
        v.manyEvents = 500;
        v.manyIdleTime = Duration.ofSeconds(10);
        return v;
    }

    /**
     * Parses the arguments; {@code --quick} (anywhere) sets the base, every other option applies on top.
     *
     * @throws InvalidConfigurationException naming the option when a value is unusable
     */
    public static BenchmarkConfig parse(String[] args) {
        Values v = List.of(args).contains("--quick") ? quickValues() : new Values();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("--quick")) {
                continue;
            }
            int eq = arg.indexOf('=');
            String name = eq > 0 ? arg.substring(0, eq) : arg;
            String value;
            if (eq > 0) {
                value = arg.substring(eq + 1);
            } else if (i + 1 < args.length && !name.equals("--help")) {
                value = args[++i];
            } else {
                throw new InvalidConfigurationException(name, "needs a value\n" + usage());
            }
            v.set(name, value);
        }
        return v.toOptions();
    }

    /** Scenario 7's batch size under {@code ordering}: as set, else the library's default for that ordering. */
    public int heldBatchSize(Ordering ordering) {
        return heldBatch > 0 ? heldBatch : RelayConfig.defaultBatchSize(ordering);
    }

    /** Whether scenario {@code n} runs. */
    public boolean runs(int n) {
        return scenarios.contains(n);
    }

    /** The command-line help. */
    public static String usage() {
        return String.join(
                "\n",
                "usage: java -jar benchmarks/target/outbox-benchmarks.jar [--quick] [options]",
                "  --quick                50,000 backlog, 1 run, 4 s drains, 15 s steady state, 1M sent rows",
                "  --runs N               repetitions per figure, median printed (default 3; quick 1)",
                "  --backlog N            events in the backlog of scenarios 1-3 and 8 (default 200000; quick 50000)",
                "  --drain-seconds N      a drain stops when empty or after N s (default 5; quick 4)",
                "  --relay-threads N      worker relay threads, scenarios 3, 4 and 10 (default the library's, "
                        + OutboxWorkerConfig.DEFAULT_RELAY_THREADS + ")",
                "  --batch-size N         worker batch size, scenarios 3, 4, 6 (default the library's, "
                        + RelayConfig.DEFAULT_BATCH_SIZE + ")",
                "  --steady-seconds N     one scenario 4 run per wake-up choice, repeated --runs times (default 20; quick 15)",
                "  --rate N               scenario 4 events/s (default 2000)",
                "  --producer-seconds N   saturated producers (scenarios 4 and 5) switch what they do every N/16 s (default 4; quick 3)",
                "  --producers N          producer threads (default 4)",
                "  --sent-rows N          sent rows for scenario 6 (default 10000000; quick 1000000)",
                "  --scenarios 1,3,...    which scenarios run (default 1-6 and 8; 7, the long transaction, 9, the tail, and 10,",
                "                         many outboxes, only when named)",
                "  --held-seconds N       scenario 7: each run, with and without a held snapshot (default 600; quick 60)",
                "  --held-interval-seconds N  scenario 7 reports per N s (default 60; quick 10)",
                "  --held-completion LIST scenario 7 completion modes: keep-sent,delete (default both)",
                "  --held-ordering LIST   scenario 7 orderings: none,per_key (default both)",
                "  --held-layout LIST     scenario 7 store layouts: in_place,append_log or both (default both)",
                "  --held-relay-threads N scenario 7 relay threads (default the library's, "
                        + OutboxWorkerConfig.DEFAULT_RELAY_THREADS + ")",
                "  --held-batch-size N    scenario 7 batch size (default the library's: "
                        + RelayConfig.DEFAULT_BATCH_SIZE + ", " + RelayConfig.DEFAULT_PER_KEY_BATCH_SIZE
                        + " per key)",
                "  --drain-layout LIST    scenario 3 store layouts: in_place,append_log or both (default both)",
                "  --scale-layout LIST    scenario 8 store layouts: in_place,append_log or both (default the library's, "
                        + PostgresOutboxConfig.DEFAULT_LAYOUT.name().toLowerCase(Locale.ROOT) + ")",
                "  --scale-keys N         scenario 8 backlog's distinct keys, written round-robin (default "
                        + OutboxTables.KEYS + ")",
                "  --scale-threads N      scenario 8: relay threads of each relay process in the 1, 2 and 4 process",
                "                         shapes (default the library's, " + OutboxWorkerConfig.DEFAULT_RELAY_THREADS
                        + ")",
                "  --tail-seconds N       scenario 9: each run, per variant and rate (default 120; quick 30)",
                "  --tail-interval-seconds N  scenario 9 reports per N s (default 60; quick 10)",
                "  --tail-rates LIST      scenario 9 events/s (default 500,2000)",
                "  --many-outboxes LIST   scenario 10: how many outboxes (tenant schemas) each run has (default 1,10,100)",
                "  --many-events N        scenario 10: backlog per outbox (default 2000; quick 500)",
                "  --many-idle-seconds N  scenario 10: how long the idle relays' queries are counted (default 30; quick 10)",
                "  --jdbc-url URL         default " + DEFAULT_JDBC_URL + " (user postgres)",
                "  --rabbitmq-host HOST   default 127.0.0.1 (port 5672, guest/guest)",
                "  --kafka-property K=V   a producer property of the relay's Kafka publisher over the library's defaults",
                "                         (repeatable), e.g. --kafka-property linger.ms=0",
                "  --kafka-log-dir DIR    where the Kafka broker keeps its log (default /dev/shm when it has",
                "                         " + MEMORY_LOG_MIN_FREE_GIB + " GiB free, else the temporary directory)",
                "  --kafka-broker WHERE   own-jvm (default: a JVM of its own, as in production) or in-process");
    }

    /** One line saying what this run used. */
    public String describe() {
        return String.format(
                        Locale.ROOT,
                        "runs=%d backlog=%,d drain-window=%ds relay=%d threads x batch %d "
                                + "steady=%ds at %,d/s producers=%d (saturated %ds) sent-rows=%,d scenarios=%s",
                        runs,
                        backlog,
                        drainWindow.toSeconds(),
                        relayThreads,
                        batchSize,
                        steadyTime.toSeconds(),
                        steadyRate,
                        producers,
                        producerTime.toSeconds(),
                        sentRows,
                        scenarios.stream().sorted().toList())
                + (kafkaProperties.isEmpty() ? "" : " kafka=" + new TreeMap<>(kafkaProperties))
                + (kafkaInProcess ? " kafka-broker=in-process" : "")
                + (runs(3) ? " drain-layouts=" + drainLayouts : "")
                + (runs(8)
                        ? " scale-layouts=" + scaleLayouts + " scale-keys=" + scaleKeys + " scale-threads="
                                + scaleThreads
                        : "")
                + (runs(7)
                        ? String.format(
                                Locale.ROOT,
                                " held=%ds per %ds %s %s %s held-relay=%d threads x batch %s",
                                heldTime.toSeconds(),
                                heldInterval.toSeconds(),
                                heldCompletions,
                                heldOrderings,
                                heldLayouts,
                                heldThreads,
                                heldBatch > 0 ? Integer.toString(heldBatch) : "the ordering's default")
                        : "")
                + (runs(9)
                        ? String.format(
                                Locale.ROOT,
                                " tail=%ds per %ds at %s/s",
                                tailTime.toSeconds(),
                                tailInterval.toSeconds(),
                                tailRates)
                        : "")
                + (runs(10)
                        ? String.format(
                                Locale.ROOT,
                                " many=%s outboxes x %,d events, idle %ds",
                                manyOutboxes,
                                manyEvents,
                                manyIdleTime.toSeconds())
                        : "");
    }

    /** Mutable values while parsing. */
    private static final class Values {
        int runs = 3;
        int backlog = 200_000;
        int searchBacklog = 50_000;
        Duration drainWindow = Duration.ofSeconds(5);
        int relayThreads = OutboxWorkerConfig.DEFAULT_RELAY_THREADS;
        int batchSize = RelayConfig.DEFAULT_BATCH_SIZE;
        Duration steadyTime = Duration.ofSeconds(20);
        int steadyRate = 2_000;
        Duration producerTime = Duration.ofSeconds(4);
        int producers = 4;
        long sentRows = 10_000_000L;
        int leasesPerRun = 10;
        Set<Integer> scenarios = Set.of(1, 2, 3, 4, 5, 6, 8);
        String jdbcUrl = DEFAULT_JDBC_URL;
        String rabbitHost = "127.0.0.1";
        Map<String, String> kafkaProperties = new LinkedHashMap<>();
        String kafkaLogDir = "";
        boolean kafkaInProcess;
        Duration heldTime = Duration.ofMinutes(10);
        Duration heldInterval = Duration.ofMinutes(1);
        List<CompletionMode> heldCompletions = List.of(CompletionMode.KEEP_SENT, CompletionMode.DELETE_ON_PUBLISH);
        List<Ordering.Mode> heldOrderings = List.of(Ordering.Mode.NONE, Ordering.Mode.PER_KEY);
        List<StoreLayout> heldLayouts = List.of(StoreLayout.IN_PLACE, StoreLayout.APPEND_LOG);
        int heldThreads = OutboxWorkerConfig.DEFAULT_RELAY_THREADS;
        int heldBatch;
        List<StoreLayout> drainLayouts = List.of(StoreLayout.IN_PLACE, StoreLayout.APPEND_LOG);
        List<StoreLayout> scaleLayouts = List.of(PostgresOutboxConfig.DEFAULT_LAYOUT);
        int scaleKeys = OutboxTables.KEYS;
        int scaleThreads = OutboxWorkerConfig.DEFAULT_RELAY_THREADS;
        Duration tailTime = Duration.ofSeconds(120);
        Duration tailInterval = Duration.ofMinutes(1);
        List<Integer> tailRates = List.of(500, 2_000);
        List<Integer> manyOutboxes = List.of(1, 10, 100);
        int manyEvents = 2_000;
        Duration manyIdleTime = Duration.ofSeconds(30);

        void set(String name, String value) {
            switch (name) {
                case "--runs" -> runs = positive(name, value);
                case "--backlog" -> {
                    backlog = positive(name, value);
                    searchBacklog = Math.min(searchBacklog, backlog);
                }
                case "--drain-seconds" -> drainWindow = Duration.ofSeconds(positive(name, value));
                case "--relay-threads" -> relayThreads = positive(name, value);
                case "--batch-size" -> batchSize = positive(name, value);
                case "--steady-seconds" -> steadyTime = Duration.ofSeconds(positive(name, value));
                case "--rate" -> steadyRate = positive(name, value);
                case "--producer-seconds" -> producerTime = Duration.ofSeconds(positive(name, value));
                case "--producers" -> producers = positive(name, value);
                case "--sent-rows" -> sentRows = notNegative(name, value);
                case "--scenarios" -> {
                    Set<Integer> chosen = new LinkedHashSet<>();
                    for (String part : value.split(",")) {
                        int s = positive(name, part.trim());
                        if (s > 10) {
                            throw new InvalidConfigurationException(name, "scenarios are numbered 1 to 10, was " + s);
                        }
                        chosen.add(s);
                    }
                    scenarios = Set.copyOf(chosen);
                }
                case "--held-seconds" -> heldTime = Duration.ofSeconds(positive(name, value));
                case "--held-interval-seconds" -> heldInterval = Duration.ofSeconds(positive(name, value));
                case "--held-completion" -> {
                    List<CompletionMode> chosen = new ArrayList<>();
                    for (String part : value.split(",")) {
                        chosen.add(
                                switch (part.trim()) {
                                    case "keep-sent" -> CompletionMode.KEEP_SENT;
                                    case "delete" -> CompletionMode.DELETE_ON_PUBLISH;
                                    default ->
                                        throw new InvalidConfigurationException(
                                                name, "must list keep-sent and/or delete, was " + value);
                                });
                    }
                    heldCompletions = List.copyOf(new LinkedHashSet<>(chosen));
                }
                case "--held-ordering" -> {
                    List<Ordering.Mode> chosen = new ArrayList<>();
                    for (String part : value.split(",")) {
                        chosen.add(
                                switch (part.trim()) {
                                    case "none" -> Ordering.Mode.NONE;
                                    case "per_key", "per-key" -> Ordering.Mode.PER_KEY;
                                    default ->
                                        throw new InvalidConfigurationException(
                                                name, "must list none and/or per_key, was " + value);
                                });
                    }
                    heldOrderings = List.copyOf(new LinkedHashSet<>(chosen));
                }
                case "--held-layout" -> heldLayouts = layouts(name, value);
                case "--held-relay-threads" -> heldThreads = positive(name, value);
                case "--held-batch-size" -> heldBatch = positive(name, value);
                case "--drain-layout" -> drainLayouts = layouts(name, value);
                case "--scale-layout" -> scaleLayouts = layouts(name, value);
                case "--scale-keys" -> scaleKeys = positive(name, value);
                case "--scale-threads" -> scaleThreads = positive(name, value);
                case "--tail-seconds" -> tailTime = Duration.ofSeconds(positive(name, value));
                case "--tail-interval-seconds" -> tailInterval = Duration.ofSeconds(positive(name, value));
                case "--tail-rates" -> {
                    List<Integer> chosen = new ArrayList<>();
                    for (String part : value.split(",")) {
                        chosen.add(positive(name, part.trim()));
                    }
                    tailRates = List.copyOf(new LinkedHashSet<>(chosen));
                }
                case "--many-outboxes" -> {
                    List<Integer> chosen = new ArrayList<>();
                    for (String part : value.split(",")) {
                        chosen.add(positive(name, part.trim()));
                    }
                    manyOutboxes = chosen.stream().distinct().sorted().toList();
                }
                case "--many-events" -> manyEvents = positive(name, value);
                case "--many-idle-seconds" -> manyIdleTime = Duration.ofSeconds(positive(name, value));
                case "--jdbc-url" -> {
                    if (!value.startsWith("jdbc:postgresql:")) {
                        throw new InvalidConfigurationException(name, "must start with jdbc:postgresql:, was " + value);
                    }
                    jdbcUrl = value;
                }
                case "--rabbitmq-host" -> rabbitHost = value;
                case "--kafka-property" -> {
                    int eq = value.indexOf('=');
                    if (eq < 1) {
                        throw new InvalidConfigurationException(name, "must be NAME=VALUE, was " + value);
                    }
                    kafkaProperties.put(
                            value.substring(0, eq).trim(),
                            value.substring(eq + 1).trim());
                }
                case "--kafka-log-dir" -> kafkaLogDir = value;
                case "--kafka-broker" -> {
                    if (!value.equals("own-jvm") && !value.equals("in-process")) {
                        throw new InvalidConfigurationException(name, "must be own-jvm or in-process, was " + value);
                    }
                    kafkaInProcess = value.equals("in-process");
                }
                default -> throw new InvalidConfigurationException(name, "unknown option\n" + usage());
            }
        }

        BenchmarkConfig toOptions() {
            return new BenchmarkConfig(
                    runs,
                    backlog,
                    searchBacklog,
                    drainWindow,
                    relayThreads,
                    batchSize,
                    steadyTime,
                    steadyRate,
                    producerTime,
                    producers,
                    sentRows,
                    leasesPerRun,
                    scenarios,
                    jdbcUrl,
                    rabbitHost,
                    Map.copyOf(kafkaProperties),
                    kafkaLogDir,
                    kafkaInProcess,
                    heldTime,
                    heldInterval,
                    heldCompletions,
                    heldOrderings,
                    heldLayouts,
                    heldThreads,
                    heldBatch,
                    drainLayouts,
                    scaleLayouts,
                    scaleKeys,
                    scaleThreads,
                    tailTime,
                    tailInterval,
                    tailRates,
                    manyOutboxes,
                    manyEvents,
                    manyIdleTime);
        }

        private static List<StoreLayout> layouts(String name, String value) {
            if (value.trim().equals("both")) {
                return List.of(StoreLayout.IN_PLACE, StoreLayout.APPEND_LOG);
            }
            List<StoreLayout> chosen = new ArrayList<>();
            for (String part : value.split(",")) {
                chosen.add(
                        switch (part.trim().replace('-', '_')) {
                            case "in_place" -> StoreLayout.IN_PLACE;
                            case "append_log" -> StoreLayout.APPEND_LOG;
                            default ->
                                throw new InvalidConfigurationException(
                                        name, "must be both or list in_place and/or append_log, was " + value);
                        });
            }
            return List.copyOf(new LinkedHashSet<>(chosen));
        }

        private static int positive(String name, String value) {
            long n = notNegative(name, value);
            if (n < 1 || n > Integer.MAX_VALUE) {
                throw new InvalidConfigurationException(
                        name, "must be between 1 and " + Integer.MAX_VALUE + ", was " + value);
            }
            return (int) n;
        }

        private static long notNegative(String name, String value) {
            try {
                long n = Long.parseLong(value.replace("_", "").replace(",", ""));
                if (n < 0) {
                    throw new InvalidConfigurationException(name, "must not be negative, was " + value);
                }
                return n;
            } catch (NumberFormatException e) {
                throw new InvalidConfigurationException(name, "must be a whole number, was " + value);
            }
        }
    }
}
