package dev.outboxjava.benchmarks.internal;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;

/**
 * Producer threads, each on its own connection, committing one transaction after another: as fast
 * as they can ({@link #saturate}) or at a fixed total rate ({@link #paced}).
 */
public final class ProducerLoad {

    /** The producer threads' names start with this (CPU accounting finds them by it). */
    public static final String THREAD_NAME_PREFIX = "bench-producer-";

    /** The body of one transaction; the load commits it. */
    @FunctionalInterface
    public interface Transaction {
        /** @return what {@link AfterCommit} is told (e.g. the event id), may be null */
        Object run(Connection connection) throws SQLException;
    }

    /** Runs on the producer thread right after a commit returned. */
    @FunctionalInterface
    public interface AfterCommit {
        void committed(Object result, long commitNanos);
    }

    private ProducerLoad() {}

    private static final ThreadLocal<Long> LAST_CPU_NANOS = ThreadLocal.withInitial(() -> 0L);

    /** Producer-thread CPU nanoseconds in all of the last {@code saturate}/{@code paced} call on this thread. */
    public static long lastCpuNanos() {
        return LAST_CPU_NANOS.get();
    }

    /** @return committed transactions per second over {@code duration} with {@code threads} clients */
    public static double saturate(
            DataSource pool, int threads, Duration duration, Transaction work, AfterCommit after) {
        return run(pool, threads, duration, 0, work, after);
    }

    /** Commits {@code ratePerSecond} transactions per second in total for {@code duration}. @return achieved rate */
    public static double paced(
            DataSource pool, int threads, Duration duration, int ratePerSecond, Transaction work, AfterCommit after) {
        return run(pool, threads, duration, ratePerSecond, work, after);
    }

    private static double run(
            DataSource pool, int threads, Duration duration, int rate, Transaction work, AfterCommit after) {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong committed = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicLong cpuNanos = new AtomicLong();
        ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
        long periodNanos = rate > 0 ? (long) (1e9 * threads / rate) : 0;
        List<Thread> clients = new ArrayList<>();
        long start = System.nanoTime();
        for (int i = 0; i < threads; i++) {
            long offset = periodNanos * i / threads;
            clients.add(new Thread(
                    () -> {
                        long cpuStart = cpu.getCurrentThreadCpuTime();
                        try (Connection connection = pool.getConnection()) {
                            connection.setAutoCommit(false);
                            long next = start + offset;
                            while (!stop.get()) {
                                if (periodNanos > 0) {
                                    long wait = next - System.nanoTime();
                                    if (wait > 0) {
                                        LockSupport.parkNanos(wait);
                                        continue;
                                    }
                                    next += periodNanos;
                                }
                                Object result;
                                try {
                                    result = work.run(connection);
                                    connection.commit();
                                } catch (SQLException | RuntimeException e) {
                                    connection.rollback();
                                    throw e;
                                }
                                long at = System.nanoTime();
                                committed.incrementAndGet();
                                after.committed(result, at);
                            }
                            connection.setAutoCommit(true);
                        } catch (Throwable e) {
                            failure.compareAndSet(null, e);
                        } finally {
                            cpuNanos.addAndGet(cpu.getCurrentThreadCpuTime() - cpuStart);
                        }
                    },
                    THREAD_NAME_PREFIX + i));
        }
        clients.forEach(Thread::start);
        long end = start + duration.toNanos();
        while (System.nanoTime() < end && failure.get() == null) {
            LockSupport.parkNanos(Math.min(50_000_000L, Math.max(1, end - System.nanoTime())));
        }
        stop.set(true);
        for (Thread client : clients) {
            try {
                client.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        }
        if (failure.get() != null) {
            throw new IllegalStateException("a producer failed: " + failure.get(), failure.get());
        }
        LAST_CPU_NANOS.set(cpuNanos.get());
        return committed.get() / ((System.nanoTime() - start) / 1e9);
    }
}
