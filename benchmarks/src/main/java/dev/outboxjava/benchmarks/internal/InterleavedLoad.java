package dev.outboxjava.benchmarks.internal;

import dev.outboxjava.benchmarks.Log;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import javax.sql.DataSource;

/**
 * Saturated producers whose transaction switches between variants every phase of one continuous
 * load, so that the variants are compared close together in time.
 *
 * <p>Why: the rate of a shared 2-core virtual machine drifts over seconds (the host takes CPU back,
 * the virtual disk stalls). Measured in slices of a second or more, each with the producers
 * restarted and the tables emptied, one round's ratio of two variants that differ by no database work
 * spreads with a standard deviation of 14–36 % on such a machine. Phases of a fraction of a second back to back pair
 * better, and many more of them fit in the same time.
 *
 * @param <V> the variants
 */
public final class InterleavedLoad<V extends Enum<V>> {

    /** The body of a transaction of one variant; the load commits it. */
    @FunctionalInterface
    public interface Work<V> {
        void run(V variant, Connection connection) throws SQLException;
    }

    /** Runs on the producer thread right after a transaction of {@code variant} committed. */
    @FunctionalInterface
    public interface AfterCommit<V> {
        void committed(V variant);
    }

    /**
     * Per variant, one entry per round (same index = same round).
     *
     * @param tps        committed transactions per second in the variant's phase
     * @param cpuMicros  the producer threads' JVM CPU microseconds per transaction in that phase
     */
    public record Rates<V>(Map<V, List<Double>> tps, Map<V, List<Double>> cpuMicros) {}

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final Class<V> type;
    private final String label;
    private final Duration phase;
    private final int rounds;
    private final Duration warmUp;

    /**
     * @param label  the log lines' prefix
     * @param phase  how long one variant runs before the next takes over
     * @param rounds measured rounds, each giving every variant one phase
     * @param warmUp unmeasured rounds first, for at least this long
     */
    public InterleavedLoad(Class<V> type, String label, Duration phase, int rounds, Duration warmUp) {
        this.type = type;
        this.label = label;
        this.phase = phase;
        this.rounds = rounds;
        this.warmUp = warmUp;
    }

    /**
     * The variants in the order round {@code round} runs them: rotated by one each round and reversed
     * every other round, so that no variant always follows the same one (what one leaves behind,
     * such as the WAL it wrote, falls on the next) and each one's neighbours in time change.
     */
    public static <T> List<T> order(T[] all, int round) {
        List<T> order = new ArrayList<>(all.length);
        for (int k = 0; k < all.length; k++) {
            order.add(all[(k + round) % all.length]);
        }
        if (round % 2 == 1) {
            Collections.reverse(order);
        }
        return order;
    }

    /** Runs the load with {@code producers} threads on {@code pool} and returns each phase's rates. */
    public Rates<V> run(DataSource pool, int producers, Work<V> work, AfterCommit<V> after) {
        V[] variants = type.getEnumConstants();
        Rates<V> rates = new Rates<>(new EnumMap<>(type), new EnumMap<>(type));
        for (V variant : variants) {
            rates.tps().put(variant, new ArrayList<>());
            rates.cpuMicros().put(variant, new ArrayList<>());
        }
        AtomicLong committed = new AtomicLong();
        AtomicReference<V> current = new AtomicReference<>(variants[0]);
        Duration roundTime = phase.multipliedBy(variants.length);
        int warmUpRounds = (int) Math.ceil(warmUp.toNanos() / (double) roundTime.toNanos());
        Duration load = roundTime.multipliedBy(warmUpRounds + rounds).plusSeconds(1); // outlasts the last phase
        CompletableFuture<Double> running = CompletableFuture.supplyAsync(
                () -> ProducerLoad.saturate(
                        pool,
                        producers,
                        load,
                        connection -> {
                            V variant = current.get();
                            work.run(variant, connection);
                            return variant;
                        },
                        (variant, at) -> {
                            committed.incrementAndGet();
                            after.committed(type.cast(variant));
                        }),
                runnable -> new Thread(runnable, "bench-interleaved-load").start());
        for (int round = -warmUpRounds; round < rounds; round++) {
            Map<V, double[]> measured = new EnumMap<>(type);
            for (V variant : order(variants, Math.floorMod(round, variants.length * 2))) {
                current.set(variant);
                long commitsBefore = committed.get();
                long cpuBefore = producerCpuNanos();
                long startedAt = System.nanoTime();
                long endsAt = startedAt + phase.toNanos();
                for (long left = phase.toNanos(); left > 0; left = endsAt - System.nanoTime()) {
                    LockSupport.parkNanos(left);
                }
                long commits = committed.get() - commitsBefore;
                measured.put(variant, new double[] {
                    commits / ((System.nanoTime() - startedAt) / 1e9),
                    commits == 0 ? Double.NaN : (producerCpuNanos() - cpuBefore) / 1e3 / commits
                });
            }
            if (round >= 0) { // the first rounds only warm up
                measured.forEach((variant, figures) -> {
                    rates.tps().get(variant).add(figures[0]);
                    rates.cpuMicros().get(variant).add(figures[1]);
                });
                Log.line(
                        "%s round %d of %d, phases of %d ms: %s",
                        label,
                        round + 1,
                        rounds,
                        phase.toMillis(),
                        measured.entrySet().stream()
                                .map(e -> String.format(Locale.ROOT, "%s %,.0f", e.getKey(), e.getValue()[0]))
                                .collect(Collectors.joining(", ", "", " transactions/s")));
            }
        }
        running.join(); // rethrows a producer's failure
        return rates;
    }

    /** CPU time of the load's producer threads so far. */
    private static long producerCpuNanos() {
        long total = 0;
        for (ThreadInfo info : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
            if (info != null && info.getThreadName().startsWith(ProducerLoad.THREAD_NAME_PREFIX)) {
                total += Math.max(0, THREADS.getThreadCpuTime(info.getThreadId()));
            }
        }
        return total;
    }
}
