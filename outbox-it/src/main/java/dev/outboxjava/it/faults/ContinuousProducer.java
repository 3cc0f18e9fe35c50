package dev.outboxjava.it.faults;

import dev.outboxjava.core.OutboxEvent;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Producers writing continuously while faults are injected, the way a service updates several aggregates in
 * one transaction (a transfer between two accounts, an order that updates a customer and a stock row): each
 * thread opens a transaction that touches one to {@link Settings#maxKeysPerTransaction} keys and, for each key
 * in key order, locks the key's row in an aggregates table ({@code INSERT … ON CONFLICT (key) DO UPDATE SET
 * version = version + 1 RETURNING version}), then appends that aggregate's event with the {@link
 * EventAppender}; then it commits — or, for a share of the transactions, rolls back on purpose, events and
 * versions included. A transaction that waits for a key's lock therefore holds the locks (and the transaction
 * id) of the keys before it, and appends after the writer it waited for: the interleaving that per-key order
 * must survive. Every outcome, and each event's version (its write order within its key), goes to the
 * {@link ProducerLedger}. Keys are drawn from a fixed set so that per-key order can be checked. Stops once the
 * target number of committed events is reached (or on {@link #stop()}).
 */
public final class ContinuousProducer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ContinuousProducer.class);

    /** The header that carries an event's version: its aggregate's version in the transaction that wrote it. */
    public static final String VERSION_HEADER = "aggregate-version";

    private static final long MAX_WORK_UNDER_LOCK_NANOS = TimeUnit.MILLISECONDS.toNanos(4);

    private static final Pattern TABLE_NAME = Pattern.compile("[a-z_][a-z0-9_]{0,62}(\\.[a-z_][a-z0-9_]{0,62})?");

    /**
     * How the producers write.
     *
     * @param destination      topic or exchange of every event
     * @param committedTarget  stop after this many committed events
     * @param threads          producer threads
     * @param maxKeysPerTransaction keys (aggregates) one transaction touches, 1 to this many, one event each
     * @param rollbackShare    share of transactions rolled back on purpose, 0..1
     * @param keys             how many distinct keys the events use (at least {@code maxKeysPerTransaction})
     * @param eventsPerSecond  overall pace; 0 = as fast as the database takes them
     * @param maxAttempts      each event's max attempts (high, so injected faults never dead-letter an event)
     * @param aggregatesTable  the aggregates table, {@code [schema.]name} ({@link #createAggregatesTable})
     * @param seed             random seed (keys, rollbacks)
     */
    public record Settings(
            String destination,
            int committedTarget,
            int threads,
            int maxKeysPerTransaction,
            double rollbackShare,
            int keys,
            int eventsPerSecond,
            int maxAttempts,
            String aggregatesTable,
            long seed) {

        public Settings {
            Objects.requireNonNull(destination, "destination");
            checkTableName(aggregatesTable);
            if (committedTarget < 1 || threads < 1 || maxKeysPerTransaction < 1 || keys < 1 || maxAttempts < 1) {
                throw new IllegalArgumentException(
                        "committedTarget, threads, maxKeysPerTransaction, keys and maxAttempts must be positive");
            }
            if (keys < maxKeysPerTransaction) {
                throw new IllegalArgumentException(
                        "keys must be at least maxKeysPerTransaction (" + maxKeysPerTransaction + "), was " + keys);
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

    private static String checkTableName(String table) {
        Objects.requireNonNull(table, "aggregatesTable");
        if (!TABLE_NAME.matcher(table).matches()) {
            throw new IllegalArgumentException(
                    "aggregatesTable must be [schema.]name in lower-case letters, digits and _, was " + table);
        }
        return table;
    }

    /** Creates the aggregates table the producers lock their keys' rows in: one row per key, its version. */
    public static void createAggregatesTable(DataSource dataSource, String table) throws SQLException {
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE IF NOT EXISTS " + checkTableName(table)
                    + " (key text PRIMARY KEY, version bigint NOT NULL)");
        }
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
                "{} producer thread(s) writing {} committed events to {} (1 to {} of {} keys per transaction, each "
                        + "locked in key order before its event, {} % rolled back)",
                settings.threads(),
                settings.committedTarget(),
                settings.destination(),
                settings.maxKeysPerTransaction(),
                settings.keys(),
                Math.round(settings.rollbackShare() * 100));
        return producer;
    }

    private void run(SplittableRandom random) {
        long pauseNanosPerEvent = settings.eventsPerSecond() == 0
                ? 0
                : TimeUnit.SECONDS.toNanos(1) * settings.threads() / settings.eventsPerSecond();
        String upsert = "INSERT INTO " + settings.aggregatesTable() + " AS a (key, version) VALUES (?, 1)"
                + " ON CONFLICT (key) DO UPDATE SET version = a.version + 1"
                + " RETURNING version, pg_current_xact_id()::text::bigint";
        long next = System.nanoTime();
        while (!stopped.get()) {
            boolean rollback = random.nextDouble() < settings.rollbackShare();
            List<String> keys = keys(random);
            if (!rollback && reserved.addAndGet(keys.size()) > settings.committedTarget()) {
                return;
            }
            transaction(upsert, keys, rollback, random);
            if (pauseNanosPerEvent > 0) {
                next += pauseNanosPerEvent * keys.size();
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                }
            }
        }
    }

    /** One to {@code maxKeysPerTransaction} distinct keys, in key order: the order a service locks them in. */
    private List<String> keys(SplittableRandom random) {
        int count = 1 + random.nextInt(settings.maxKeysPerTransaction());
        TreeSet<String> keys = new TreeSet<>();
        while (keys.size() < count) {
            keys.add("key-" + random.nextInt(settings.keys()));
        }
        return List.copyOf(keys);
    }

    private OutboxEvent event(String key, long version) {
        return OutboxEvent.builder()
                .type("faults.event")
                .key(key)
                .destination(settings.destination())
                .routingKey(key)
                .maxAttempts(settings.maxAttempts())
                .header(VERSION_HEADER, String.valueOf(version))
                .payload(("{\"key\":\"" + key + "\",\"version\":" + version + "}").getBytes(StandardCharsets.UTF_8))
                .build();
    }

    private void transaction(String upsert, List<String> keys, boolean rollback, SplittableRandom random) {
        List<OutboxEvent> events = new ArrayList<>(keys.size());
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            long beganWriting = System.nanoTime();
            try (PreparedStatement lock = connection.prepareStatement(upsert)) {
                for (String key : keys) {
                    lock.setString(1, key);
                    long version;
                    long transactionId;
                    try (ResultSet row = lock.executeQuery()) {
                        row.next();
                        version = row.getLong(1);
                        transactionId = row.getLong(2);
                    }
                    // the aggregate's own work, under its lock: long enough for writers of other keys to queue
                    LockSupport.parkNanos(random.nextLong(MAX_WORK_UNDER_LOCK_NANOS));
                    OutboxEvent event = event(key, version);
                    events.add(event);
                    ledger.wrote(event.id(), version, transactionId);
                    appender.append(connection, List.of(event));
                }
            } catch (SQLException | RuntimeException e) {
                connection.rollback();
                ledger.rolledBack(events);
                failed(e, rollback, keys.size());
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
                failed(e, false, keys.size());
            }
        } catch (SQLException | RuntimeException e) {
            // no connection, or the rollback failed: nothing committed
            ledger.rolledBack(events);
            failed(e, rollback, keys.size());
        }
    }

    private void failed(Exception e, boolean rollback, int events) {
        if (!rollback) {
            reserved.addAndGet(-events);
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
