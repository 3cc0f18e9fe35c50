package dev.outboxjava.benchmarks;

import dev.outboxjava.core.InvalidConfigurationException;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * What one benchmark run does, from the command line. {@link #defaults()} fits in about ten minutes on a
 * 2-core machine; {@code --quick} in about three.
 *
 * @param runs            repetitions per figure; each printed figure is the median
 * @param backlog         events in the backlog that scenarios 1–3 drain
 * @param searchBacklog   events per configuration while scenario 1 looks for its best batch size and drainers
 * @param baselineTime    how long the blog baseline drains (it is too slow to drain the whole backlog)
 * @param relayThreads    the worker's relay threads in scenarios 3 and 4
 * @param batchSize       the worker's batch size in scenarios 3 and 4
 * @param steadyTime      how long producers commit in scenario 4
 * @param steadyRate      events per second the producers commit in scenario 4
 * @param producerTime    how long each producer-throughput measurement saturates the database (scenarios 4, 5)
 * @param producers       producer client threads (scenarios 4, 5)
 * @param sentRows        sent rows loaded for scenario 6
 * @param leasesPerRun    leases timed per table per run in scenario 6
 * @param scenarios       which scenarios run (1–6)
 * @param jdbcUrl         the PostgreSQL database
 * @param rabbitHost      the RabbitMQ host (port 5672, guest/guest)
 */
public record BenchmarkOptions(int runs, int backlog, int searchBacklog, Duration baselineTime, int relayThreads,
        int batchSize, Duration steadyTime, int steadyRate, Duration producerTime, int producers, long sentRows,
        int leasesPerRun, Set<Integer> scenarios, String jdbcUrl, String rabbitHost) {

    /** The full run. */
    public static BenchmarkOptions defaults() {
        return new BenchmarkOptions(3, 200_000, 50_000, Duration.ofSeconds(10), 4, 500, Duration.ofSeconds(60),
                2_000, Duration.ofSeconds(5), 4, 10_000_000L, 10, Set.of(1, 2, 3, 4, 5, 6),
                "jdbc:postgresql://127.0.0.1:5432/test", "127.0.0.1");
    }

    /** A smaller, shorter run with the same shape ({@code --quick}). */
    public static BenchmarkOptions quick() {
        return new BenchmarkOptions(1, 50_000, 20_000, Duration.ofSeconds(5), 4, 500, Duration.ofSeconds(15),
                2_000, Duration.ofSeconds(3), 4, 1_000_000L, 10, Set.of(1, 2, 3, 4, 5, 6),
                "jdbc:postgresql://127.0.0.1:5432/test", "127.0.0.1");
    }

    /**
     * Parses {@code --quick} first (it sets the base), then every other option on top.
     *
     * @throws InvalidConfigurationException naming the option when a value is unusable
     */
    public static BenchmarkOptions parse(String[] args) {
        List<String> list = List.of(args);
        BenchmarkOptions o = list.contains("--quick") ? quick() : defaults();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("--quick")) {
                continue;
            }
            if (arg.equals("--help") || arg.equals("-h")) {
                throw new InvalidConfigurationException("--help", usage());
            }
            int eq = arg.indexOf('=');
            String name = eq > 0 ? arg.substring(0, eq) : arg;
            String value;
            if (eq > 0) {
                value = arg.substring(eq + 1);
            } else if (i + 1 < args.length) {
                value = args[++i];
            } else {
                throw new InvalidConfigurationException(name, "needs a value\n" + usage());
            }
            o = o.with(name, value);
        }
        return o;
    }

    private BenchmarkOptions with(String name, String value) {
        switch (name) {
            case "--runs":
                return new BenchmarkOptions(positive(name, value), backlog, searchBacklog, baselineTime, relayThreads,
                        batchSize, steadyTime, steadyRate, producerTime, producers, sentRows, leasesPerRun, scenarios,
                        jdbcUrl, rabbitHost);
            case "--backlog":
                int b = positive(name, value);
                return new BenchmarkOptions(runs, b, Math.min(searchBacklog, b), baselineTime, relayThreads,
                        batchSize, steadyTime, steadyRate, producerTime, producers, sentRows, leasesPerRun, scenarios,
                        jdbcUrl, rabbitHost);
            case "--relay-threads":
                return new BenchmarkOptions(runs, backlog, searchBacklog, baselineTime, positive(name, value),
                        batchSize, steadyTime, steadyRate, producerTime, producers, sentRows, leasesPerRun, scenarios,
                        jdbcUrl, rabbitHost);
            case "--batch-size":
                return new BenchmarkOptions(runs, backlog, searchBacklog, baselineTime, relayThreads,
                        positive(name, value), steadyTime, steadyRate, producerTime, producers, sentRows, leasesPerRun,
                        scenarios, jdbcUrl, rabbitHost);
            case "--steady-seconds":
                return new BenchmarkOptions(runs, backlog, searchBacklog, baselineTime, relayThreads, batchSize,
                        Duration.ofSeconds(positive(name, value)), steadyRate, producerTime, producers, sentRows,
                        leasesPerRun, scenarios, jdbcUrl, rabbitHost);
            case "--rate":
                return new BenchmarkOptions(runs, backlog, searchBacklog, baselineTime, relayThreads, batchSize,
                        steadyTime, positive(name, value), producerTime, producers, sentRows, leasesPerRun, scenarios,
                        jdbcUrl, rabbitHost);
            case "--producer-seconds":
                return new BenchmarkOptions(runs, backlog, searchBacklog, baselineTime, relayThreads, batchSize,
                        steadyTime, steadyRate, Duration.ofSeconds(positive(name, value)), producers, sentRows,
                        leasesPerRun, scenarios, jdbcUrl, rabbitHost);
            case "--baseline-seconds":
                return new BenchmarkOptions(runs, backlog, searchBacklog, Duration.ofSeconds(positive(name, value)),
                        relayThreads, batchSize, steadyTime, steadyRate, producerTime, producers, sentRows,
                        leasesPerRun, scenarios, jdbcUrl, rabbitHost);
            case "--producers":
                return new BenchmarkOptions(runs, backlog, searchBacklog, baselineTime, relayThreads, batchSize,
                        steadyTime, steadyRate, producerTime, positive(name, value), sentRows, leasesPerRun, scenarios,
                        jdbcUrl, rabbitHost);
            case "--sent-rows":
                long rows;
                try {
                    rows = Long.parseLong(value.replace("_", "").replace(",", ""));
                } catch (NumberFormatException e) {
                    throw new InvalidConfigurationException(name, "must be a whole number, was " + value);
                }
                if (rows < 0) {
                    throw new InvalidConfigurationException(name, "must not be negative, was " + value);
                }
                return new BenchmarkOptions(runs, backlog, searchBacklog, baselineTime, relayThreads, batchSize,
                        steadyTime, steadyRate, producerTime, producers, rows, leasesPerRun, scenarios, jdbcUrl,
                        rabbitHost);
            case "--scenarios":
                Set<Integer> chosen = new LinkedHashSet<>();
                for (String part : value.split(",")) {
                    int s = positive(name, part.trim());
                    if (s > 6) {
                        throw new InvalidConfigurationException(name, "scenarios are numbered 1 to 6, was " + s);
                    }
                    chosen.add(s);
                }
                return new BenchmarkOptions(runs, backlog, searchBacklog, baselineTime, relayThreads, batchSize,
                        steadyTime, steadyRate, producerTime, producers, sentRows, leasesPerRun, Set.copyOf(chosen),
                        jdbcUrl, rabbitHost);
            case "--jdbc-url":
                if (!value.startsWith("jdbc:postgresql:")) {
                    throw new InvalidConfigurationException(name, "must start with jdbc:postgresql:, was " + value);
                }
                return new BenchmarkOptions(runs, backlog, searchBacklog, baselineTime, relayThreads, batchSize,
                        steadyTime, steadyRate, producerTime, producers, sentRows, leasesPerRun, scenarios, value,
                        rabbitHost);
            case "--rabbitmq-host":
                return new BenchmarkOptions(runs, backlog, searchBacklog, baselineTime, relayThreads, batchSize,
                        steadyTime, steadyRate, producerTime, producers, sentRows, leasesPerRun, scenarios, jdbcUrl,
                        value);
            default:
                throw new InvalidConfigurationException(name, "unknown option\n" + usage());
        }
    }

    /** Whether scenario {@code n} runs. */
    public boolean runs(int n) {
        return scenarios.contains(n);
    }

    private static int positive(String name, String value) {
        try {
            int n = Integer.parseInt(value.replace("_", "").replace(",", ""));
            if (n < 1) {
                throw new InvalidConfigurationException(name, "must be at least 1, was " + value);
            }
            return n;
        } catch (NumberFormatException e) {
            throw new InvalidConfigurationException(name, "must be a whole number, was " + value);
        }
    }

    /** The command-line help. */
    public static String usage() {
        return String.join("\n",
                "usage: java -jar benchmarks/target/outbox-benchmarks.jar [--quick] [options]",
                "  --quick                smaller backlog, 1 run, 15 s steady state, 1M sent rows (about 3 min)",
                "  --runs N               repetitions per figure, median printed (default 3; quick 1)",
                "  --backlog N            events drained in scenarios 1-3 (default 200000; quick 50000)",
                "  --baseline-seconds N   how long the blog baseline drains (default 10; quick 5)",
                "  --relay-threads N      worker relay threads (default 4)",
                "  --batch-size N         worker batch size (default 500)",
                "  --steady-seconds N     scenario 4 duration per wake-up (default 60; quick 15)",
                "  --rate N               scenario 4 events/s (default 2000)",
                "  --producer-seconds N   each saturated producer measurement (default 5; quick 3)",
                "  --producers N          producer threads (default 4)",
                "  --sent-rows N          sent rows for scenario 6 (default 10000000; quick 1000000)",
                "  --scenarios 1,3,...    which scenarios run (default all)",
                "  --jdbc-url URL         default jdbc:postgresql://127.0.0.1:5432/test (user postgres)",
                "  --rabbitmq-host HOST   default 127.0.0.1 (port 5672, guest/guest)");
    }

    /** One line saying what this run used. */
    public String describe() {
        return String.format(Locale.ROOT, "runs=%d backlog=%,d baseline=%ds relay=%d threads x batch %d "
                + "steady=%ds at %,d/s producers=%d (saturated %ds) sent-rows=%,d scenarios=%s", runs, backlog,
                baselineTime.toSeconds(), relayThreads, batchSize, steadyTime.toSeconds(), steadyRate, producers,
                producerTime.toSeconds(), sentRows, scenarios.stream().sorted().toList());
    }
}
