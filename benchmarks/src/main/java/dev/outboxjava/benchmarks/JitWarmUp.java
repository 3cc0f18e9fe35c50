package dev.outboxjava.benchmarks;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Locale;
import java.util.function.IntFunction;

/**
 * Unmeasured rounds until the JIT compiler has gone quiet. This one JVM also hosts the Kafka broker,
 * and on a small machine its compiler threads took a third of the CPU for the first minute and a half
 * of load — which is not the steady state of a relay that runs for days, and no fixed number of
 * rounds fits every machine. So the rounds go on until one spent less than {@link #QUIET_SHARE} of its
 * wall time compiling (the JVM's own accumulated compilation time), or until a time limit.
 */
final class JitWarmUp {

    /** A round in which the JIT compiled for less than this share of its wall time counts as quiet. */
    static final double QUIET_SHARE = 0.10;

    private JitWarmUp() {
    }

    /**
     * Runs {@code round} (given its 0-based number; it returns what to log about itself) at least
     * {@code minRounds} times, then until a round was quiet or {@code limit} has passed.
     */
    static void untilQuiet(String label, int minRounds, Duration limit, IntFunction<String> round) {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        boolean measurable = jit != null && jit.isCompilationTimeMonitoringSupported();
        long started = System.nanoTime();
        double compiling = 1;
        for (int n = 0; n < minRounds || (measurable && compiling >= QUIET_SHARE); n++) {
            if (System.nanoTime() - started > limit.toNanos()) {
                Log.line("%s warm-up stops at its limit of %d s; the JIT compiler is still busy", label,
                        limit.toSeconds());
                return;
            }
            long roundStarted = System.nanoTime();
            long compiledMillis = measurable ? jit.getTotalCompilationTime() : 0;
            String outcome = round.apply(n);
            compiling = measurable
                    ? (jit.getTotalCompilationTime() - compiledMillis) * 1e6 / (System.nanoTime() - roundStarted) : 0;
            Log.line("%s warm-up round %d (not reported): %s; JIT compiling %s of the time", label, n + 1, outcome,
                    measurable ? String.format(Locale.ROOT, "%.0f %%", 100 * compiling) : "n/a");
        }
    }
}
