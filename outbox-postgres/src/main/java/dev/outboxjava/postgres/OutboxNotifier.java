package dev.outboxjava.postgres;

import dev.outboxjava.core.InvalidConfigurationException;
import dev.outboxjava.postgres.internal.AsyncCommit;
import dev.outboxjava.postgres.internal.Identifiers;
import dev.outboxjava.postgres.internal.PreparedSql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wakes relays in other processes AFTER the producer's commit, at almost no cost to the producer
 * ({@link WakeUpMode#NOTIFY_AFTER_COMMIT}, the default).
 *
 * <p>Why not the trigger: a NOTIFY inside the appending transaction makes every such commit queue
 * for PostgreSQL's notification lock — producers lost 20–50 % of their throughput in our
 * benchmarks. Here the producer only calls {@link #signal()} after its commit (a flag and, at most,
 * an unpark); a background thread sends {@code pg_notify(channel, '')} from its own connection, in
 * its own tiny transaction, coalescing every signal that arrives meanwhile into that one
 * notification and sending at most one per {@linkplain Builder#minimumInterval(Duration) minimum
 * interval}. Relays LISTEN on the same channel as for the trigger ({@link OutboxNotificationListener}).
 *
 * <p>A notification is only a hint: the notifier commits it with {@code synchronous_commit} off for
 * that one transaction, drops it when the database is unreachable (logging the outage once), and
 * polling stays the source of truth. It borrows one connection from the data source while signals
 * keep coming and gives it back after {@value #HOLD_MILLIS} ms without one.
 *
 * <pre>{@code
 * OutboxNotifier notifier = OutboxNotifier.builder(dataSource, config.notifyChannel()).start();
 * connection.commit();      // the transaction that appended events
 * notifier.signal();        // after the commit, never before
 * }</pre>
 *
 * {@link TransactionalOutbox} does this for you. Thread-safe; keep one per data source and channel.
 */
public final class OutboxNotifier implements AutoCloseable {

    /** Default shortest time between two notifications: signals in between are folded into the next. */
    public static final Duration DEFAULT_MINIMUM_INTERVAL = Duration.ofMillis(5);

    static final long HOLD_MILLIS = 200;

    private static final Logger log = LoggerFactory.getLogger(OutboxNotifier.class);
    // a lost hint is harmless, so its commit need not wait for the WAL flush
    private static final String NOTIFY = PreparedSql.render(DSL.select(
            AsyncCommit.THIS_TRANSACTION,
            DSL.function("pg_notify", SQLDataType.OTHER, PreparedSql.bind(SQLDataType.CLOB), DSL.inline(""))));
    private static final long MAX_BACKOFF_NANOS = Duration.ofSeconds(5).toNanos();

    private final DataSource dataSource;
    private final String channel;
    private final long minimumIntervalNanos;
    private final AtomicBoolean pending = new AtomicBoolean();
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicLong sent = new AtomicLong();
    private final Thread thread;
    private volatile boolean running = true;
    // true while the thread sends a notification and waits out the minimum interval: it looks at the
    // flag when the wait ends, so a signal meanwhile need not wake it (under load, that saves a wake-up
    // of this thread per notification)
    private volatile boolean pacing;

    private OutboxNotifier(Builder builder) {
        this.dataSource = builder.dataSource;
        this.channel = builder.channel;
        this.minimumIntervalNanos = builder.minimumInterval.toNanos();
        this.thread = new Thread(this::run, "outbox-notifier-" + channel);
        this.thread.setDaemon(true);
    }

    /**
     * A notifier to configure and {@link Builder#start()}.
     *
     * @param dataSource where its connection comes from (borrowed only while signals keep coming)
     * @param channel    the channel relays LISTEN on, usually {@link PostgresOutboxConfig#notifyChannel()}
     */
    public static Builder builder(DataSource dataSource, String channel) {
        return new Builder(dataSource, channel);
    }

    /**
     * Says that a transaction which appended events has committed. Never blocks, never throws; many
     * signals close together become one notification.
     */
    public void signal() {
        // read before writing: under load the flag is already set, and a plain read leaves the
        // cache line shared between the producers' cores instead of bouncing it on every commit
        if (pending.get() || pending.getAndSet(true) || !running) {
            return;
        }
        if (!started.get() && started.compareAndSet(false, true)) {
            thread.start(); // lazily: a notifier nobody signals costs no thread
        } else if (!pacing) {
            LockSupport.unpark(thread);
        }
    }

    /** Notifications sent so far (each may stand for many signals). */
    public long notificationsSent() {
        return sent.get();
    }

    /** The shortest time between two notifications. */
    public Duration minimumInterval() {
        return Duration.ofNanos(minimumIntervalNanos);
    }

    /** The channel notified. */
    public String channel() {
        return channel;
    }

    /** Stops the thread; a pending signal is sent first if the database answers within a second. */
    @Override
    public void close() {
        running = false;
        if (started.get()) {
            LockSupport.unpark(thread);
            try {
                thread.join(Duration.ofSeconds(1).toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void run() {
        long backoff = 0;
        boolean down = false;
        while (running || pending.get()) {
            if (!pending.get()) {
                LockSupport.park(this);
                continue;
            }
            try (Connection connection = dataSource.getConnection()) {
                if (!connection.getAutoCommit()) {
                    connection.setAutoCommit(true); // the pool restores its default when it gets it back
                }
                try (PreparedStatement notify = connection.prepareStatement(NOTIFY)) {
                    notify.setString(1, channel);
                    if (down) {
                        log.info("outbox notifier on channel {} reaches the database again", channel);
                        down = false;
                    }
                    backoff = 0;
                    sendWhileSignalled(notify);
                }
            } catch (SQLException | RuntimeException e) {
                if (!down) {
                    log.warn(
                            "outbox notifier on channel {} cannot notify ({}); relays fall back to polling until the "
                                    + "database answers again",
                            channel,
                            e.getMessage());
                    down = true;
                }
                if (!running) {
                    return; // closing while the database is away: the hint is dropped
                }
                backoff = backoff == 0 ? Duration.ofMillis(100).toNanos() : Math.min(MAX_BACKOFF_NANOS, backoff * 2);
                LockSupport.parkNanos(this, backoff);
            }
        }
    }

    /** Sends one notification per burst of signals, at most one per minimum interval; returns when idle. */
    private void sendWhileSignalled(PreparedStatement notify) throws SQLException {
        long idleSince = System.nanoTime();
        while (true) {
            if (pending.getAndSet(false)) {
                pacing = true;
                try {
                    notify.execute();
                    sent.incrementAndGet();
                    sleepNanos(minimumIntervalNanos);
                } finally {
                    // cleared before the flag is read again: a signal either sees pacing false and
                    // unparks, or set the flag early enough for the next turn of this loop to see it
                    pacing = false;
                }
                idleSince = System.nanoTime();
            } else if (!running || System.nanoTime() - idleSince > HOLD_MILLIS * 1_000_000) {
                return;
            } else {
                LockSupport.parkNanos(this, HOLD_MILLIS * 1_000_000);
            }
        }
    }

    /** Sleeps the full interval, even when {@link #close()} unparks the thread. */
    private static void sleepNanos(long nanos) {
        long deadline = System.nanoTime() + nanos;
        for (long left = nanos; left > 0; left = deadline - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
    }

    /** Configures an {@link OutboxNotifier}. */
    public static final class Builder {
        private final DataSource dataSource;
        private final String channel;
        private Duration minimumInterval = DEFAULT_MINIMUM_INTERVAL;

        private Builder(DataSource dataSource, String channel) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
            this.channel = Identifiers.channel("notifyChannel", channel);
        }

        /**
         * Shortest time between two notifications (default 5 ms): longer means fewer notifications
         * and fewer, larger leases under load, at up to that much extra latency. Zero sends one per
         * database round trip.
         */
        public Builder minimumInterval(Duration value) {
            if (value == null || value.isNegative()) {
                throw new InvalidConfigurationException(
                        "minimumInterval", "must be zero or a positive duration, was " + value);
            }
            this.minimumInterval = value;
            return this;
        }

        /** The notifier; its thread starts with the first {@link OutboxNotifier#signal()}. */
        public OutboxNotifier start() {
            return new OutboxNotifier(this);
        }
    }
}
