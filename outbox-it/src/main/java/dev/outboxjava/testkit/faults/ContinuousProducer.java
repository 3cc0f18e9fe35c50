package dev.outboxjava.testkit.faults;

import dev.outboxjava.core.OutboxEvent;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Producers writing continuously while faults are injected: each thread opens a transaction, appends
 * a few events with the {@link EventAppender} and commits — or, for a share of the transactions, rolls
 * back on purpose. Every outcome goes to the {@link ProducerLedger}. Keys are drawn from a fixed set so
 * that per-key order can be checked. Stops once the target number of committed events is reached (or
 * on {@link #stop()}).
 */
public final class ContinuousProducer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ContinuousProducer.class);

    /**
     * How the producers write.
     *
     * @param destination      topic or exchange of every event
     * @param committedTarget  stop after this many committed events
     * @param threads          producer threads
     * @param eventsPerTransaction events appended by one transaction (1..)
     * @param rollbackShare    share of transactions rolled back on purpose, 0..1
     * @param keys             how many distinct keys the events use
     * @param eventsPerSecond  overall pace; 0 = as fast as the database takes them
     * @param maxAttempts      each event's max attempts (high, so injected faults never dead-letter an event)
     * @param seed             random seed (keys, rollbacks)
     */
    public record Settings(
            String destination,
            int committedTarget,
            int threads,
            int eventsPerTransaction,
            double rollbackShare,
            int keys,
            int eventsPerSecond,
            int maxAttempts,
            long seed) {

        public Settings {
            Objects.requireNonNull(destination, "destination");
            if (committedTarget < 1 || threads < 1 || eventsPerTransaction < 1 || keys < 1 || maxAttempts < 1) {
                throw new IllegalArgumentException(
                        "committedTarget, threads, eventsPerTransaction, keys and " + "maxAttempts must be positive");
            }
            if (rollbackShare < 0 || rollbackShare >= 1) {
                throw new IllegalArgumentException("rollbackShare must be in [0, 1), was " + rollbackShare);
            }
            if (eventsPerSecond < 0) {
                throw new IllegalArgumentException("eventsPerSecond must not be negative");
            }
        }
    }

    private final DataSource dataSource;
    private final EventAppender appender;
    private final Settings settings;
    private final ProducerLedger ledger;
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicBoolean stopped = new AtomicBoolean();
    private final AtomicInteger reserved = new AtomicInteger();
    private final AtomicInteger errors = new AtomicInteger();

    private ContinuousProducer(
            DataSource dataSource, EventAppender appender, Settings settings, ProducerLedger ledger) {
        this.dataSource = dataSource;
        this.appender = appender;
        this.settings = settings;
        this.ledger = ledger;
    }

    /** Starts the producer threads. */
    public static ContinuousProducer start(
            DataSource dataSource, EventAppender appender, Settings settings, ProducerLedger ledger) {
        ContinuousProducer producer = new ContinuousProducer(
                Objects.requireNonNull(dataSource, "dataSource"),
                Objects.requireNonNull(appender, "appender"),
                Objects.requireNonNull(settings, "settings"),
                Objects.requireNonNull(ledger, "ledger"));
        for (int i = 0; i < settings.threads(); i++) {
            SplittableRandom random = new SplittableRandom(settings.seed() * 31 + i);
            Thread thread = new Thread(() -> producer.run(random), "fault-producer-" + i);
            thread.setDaemon(true);
            producer.threads.add(thread);
            thread.start();
        }
        log.info(
                "{} producer thread(s) writing {} committed events to {} ({} per transaction, {} % rolled back)",
                settings.threads(),
                settings.committedTarget(),
                settings.destination(),
                settings.eventsPerTransaction(),
                Math.round(settings.rollbackShare() * 100));
        return producer;
    }

    private void run(SplittableRandom random) {
        long pauseNanos = settings.eventsPerSecond() == 0
                ? 0
                : TimeUnit.SECONDS.toNanos(1)
                        * settings.threads()
                        * settings.eventsPerTransaction()
                        / settings.eventsPerSecond();
        long next = System.nanoTime();
        while (!stopped.get()) {
            boolean rollback = random.nextDouble() < settings.rollbackShare();
            if (!rollback && reserved.addAndGet(settings.eventsPerTransaction()) > settings.committedTarget()) {
                return;
            }
            List<OutboxEvent> events = new ArrayList<>(settings.eventsPerTransaction());
            for (int i = 0; i < settings.eventsPerTransaction(); i++) {
                events.add(event(random));
            }
            transaction(events, rollback);
            if (pauseNanos > 0) {
                next += pauseNanos;
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                }
            }
        }
    }

    private OutboxEvent event(SplittableRandom random) {
        String key = "key-" + random.nextInt(settings.keys());
        return OutboxEvent.builder()
                .type("faults.event")
                .key(key)
                .destination(settings.destination())
                .routingKey(key)
                .maxAttempts(settings.maxAttempts())
                .payload(("{\"key\":\"" + key + "\"}").getBytes(StandardCharsets.UTF_8))
                .build();
    }

    private void transaction(List<OutboxEvent> events, boolean rollback) {
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            long beganWriting = System.nanoTime();
            try {
                appender.append(connection, events);
            } catch (SQLException | RuntimeException e) {
                connection.rollback();
                ledger.rolledBack(events);
                failed(e, rollback);
                return;
            }
            if (rollback) {
                connection.rollback();
                ledger.rolledBack(events);
                return;
            }
            try {
                connection.commit();
                ledger.committed(events, beganWriting, System.nanoTime());
            } catch (SQLException e) {
                ledger.uncertain(events);
                failed(e, false);
            }
        } catch (SQLException | RuntimeException e) {
            // no connection, or the rollback failed: nothing committed
            ledger.rolledBack(events);
            failed(e, rollback);
        }
    }

    private void failed(Exception e, boolean rollback) {
        if (!rollback) {
            reserved.addAndGet(-settings.eventsPerTransaction());
        }
        if (errors.incrementAndGet() <= 5) {
            log.warn("a producer transaction failed (its events are recorded as not committed): {}", e.toString());
        }
    }

    /** Whether every producer thread has finished. */
    public boolean isDone() {
        return threads.stream().noneMatch(Thread::isAlive);
    }

    /** Waits for the producers to reach their target. */
    public void awaitDone(java.time.Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (Thread thread : threads) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            thread.join(Math.max(1, left));
        }
        if (!isDone()) {
            throw new IllegalStateException("producers did not reach " + settings.committedTarget()
                    + " committed events within " + timeout + " (committed " + ledger.committedCount() + ")");
        }
    }

    /** Stops the producers after their current transaction. */
    public void stop() {
        stopped.set(true);
    }

    /** How many producer transactions failed unexpectedly. */
    public int errors() {
        return errors.get();
    }

    @Override
    public void close() {
        stop();
        for (Thread thread : threads) {
            try {
                thread.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
