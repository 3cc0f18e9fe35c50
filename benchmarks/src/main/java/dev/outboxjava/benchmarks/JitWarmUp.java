package dev.outboxjava.benchmarks;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Locale;
import java.util.function.IntFunction;

/**
 * Unmeasured rounds until the JIT compiler has gone quiet. The relay, the producers and the consumer
 * share this JVM, and on a 2-core machine its compiler threads can take a third of the CPU for the
 * first minute or two of load — which is not the steady state of a relay that runs for days, and no
 * fixed number of rounds fits every machine. So the rounds go on, in cycles over the variants measured, until a whole
 * cycle spent less than {@link #QUIET_SHARE} of its wall time compiling (the JVM's own accumulated
 * compilation time), or until a time limit.
 */
final class JitWarmUp {

    /** A cycle in which the JIT compiled for less than this share of its wall time counts as quiet. */
    static final double QUIET_SHARE = 0.10;

    private JitWarmUp() {}

    /**
     * Runs {@code round} (given its 0-based number; it returns what to log about itself) in cycles of
     * {@code cycle} rounds until a whole cycle was quiet or {@code limit} has passed. A cycle, not a
     * round, is judged: when the rounds take turns over variants (Kafka, RabbitMQ, no broker), a quiet
     * round of the variant with the least code says nothing about the others, and a measured Kafka
     * drain right after it still shared the machine with the compiler.
     */
    static void untilQuiet(String label, int cycle, Duration limit, IntFunction<String> round) {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        boolean measurable = jit != null && jit.isCompilationTimeMonitoringSupported();
        long started = System.nanoTime();
        int n = 0;
        while (true) {
            long cycleStarted = System.nanoTime();
            long cycleCompiledMillis = measurable ? jit.getTotalCompilationTime() : 0;
            for (int k = 0; k < cycle; k++, n++) {
                if (System.nanoTime() - started > limit.toNanos()) {
                    Log.line(
                            "%s warm-up stops at its limit of %d s; the JIT compiler is still busy",
                            label, limit.toSeconds());
                    return;
                }
                long roundStarted = System.nanoTime();
                long compiledMillis = measurable ? jit.getTotalCompilationTime() : 0;
                String outcome = round.apply(n);
                Log.line(
                        "%s warm-up round %d (not reported): %s; JIT compiling %s of the time",
                        label,
                        n + 1,
                        outcome,
                        measurable ? percent(compilingShare(jit, compiledMillis, roundStarted)) : "n/a");
            }
            if (!measurable) {
                return;
            }
            double share = compilingShare(jit, cycleCompiledMillis, cycleStarted);
            if (share < QUIET_SHARE) {
                Log.line(
                        "%s warm-up done after %d rounds: the last %d compiled for %s of their time",
                        label, n, cycle, percent(share));
                return;
            }
        }
    }

    /** Compilation time since {@code compiledMillis} over the wall time since {@code sinceNanos}. */
    private static double compilingShare(CompilationMXBean jit, long compiledMillis, long sinceNanos) {
        return (jit.getTotalCompilationTime() - compiledMillis) * 1e6 / (System.nanoTime() - sinceNanos);
    }

    private static String percent(double share) {
        return String.format(Locale.ROOT, "%.0f %%", 100 * share);
    }
}
