package dev.outboxjava.postgres;

import dev.outboxjava.core.InvalidConfigurationException;
import dev.outboxjava.postgres.internal.Identifiers;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wakes the relay when a notification arrives on the outbox's channel: from producers' {@link OutboxNotifier}
 * after their commits ({@link WakeUpMode#NOTIFY_AFTER_COMMIT}) or from the table's trigger
 * ({@link WakeUpMode#TRIGGER_NOTIFY}).
 *
 * <p>Holds ONE dedicated connection from the given data source for as long as it runs, LISTENs on the
 * channel and waits for notifications with pgjdbc's {@code getNotifications(timeout)}. Each arrival
 * of one or more notifications calls the callback once. When the connection dies (database restart,
 * {@code pg_terminate_backend}, network) it logs the outage once, reconnects with exponential backoff,
 * logs the recovery once and calls the callback once more — notifications sent while it was away are
 * lost, so the relay should look. Polling stays the source of truth; this only shortens the wait.
 *
 * <pre>{@code
 * OutboxNotificationListener listener = OutboxNotificationListener
 *         .builder(dataSource, config.notifyChannel(), relayLoop::wakeUp)
 *         .start();
 * // ...
 * listener.close();
 * }</pre>
 *
 * The connection's {@code application_name} is set to {@code outbox-listener:<channel>} so it can be
 * found in {@code pg_stat_activity}.
 */
public final class OutboxNotificationListener implements AutoCloseable {

    /** Default longest wait for notifications before checking for shutdown. */
    public static final Duration DEFAULT_POLL_TIMEOUT = Duration.ofMillis(500);
    /** Default first reconnect delay; it doubles per failed attempt. */
    public static final Duration DEFAULT_MIN_BACKOFF = Duration.ofMillis(100);
    /** Default longest reconnect delay. */
    public static final Duration DEFAULT_MAX_BACKOFF = Duration.ofSeconds(10);
    /** Default idle time after which the connection is probed with {@code SELECT 1} (finds half-open sockets). */
    public static final Duration DEFAULT_KEEP_ALIVE = Duration.ofSeconds(15);

    private static final Logger log = LoggerFactory.getLogger(OutboxNotificationListener.class);
    private static final long PROBE_TIMEOUT_MILLIS = 10_000;

    private final DataSource dataSource;
    private final String channel;
    private final Runnable onNotification;
    private final Duration pollTimeout;
    private final Duration minBackoff;
    private final Duration maxBackoff;
    private final Duration keepAlive;
    private final Thread thread;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final CountDownLatch closing = new CountDownLatch(1);
    private volatile boolean running = true;
    private volatile boolean listening;
    private volatile Connection current;

    private OutboxNotificationListener(Builder builder) {
        this.dataSource = builder.dataSource;
        this.channel = builder.channel;
        this.onNotification = builder.onNotification;
        this.pollTimeout = builder.pollTimeout;
        this.minBackoff = builder.minBackoff;
        this.maxBackoff = builder.maxBackoff;
        this.keepAlive = builder.keepAlive;
        this.thread = new Thread(this::run, "outbox-listener-" + channel);
        this.thread.setDaemon(true);
    }

    /**
     * A listener to configure and {@link Builder#start()}.
     *
     * @param dataSource     where the dedicated connection comes from (it is held until {@link #close()})
     * @param channel        the channel, usually {@link PostgresOutboxConfig#notifyChannel()}
     * @param onNotification called on the listener's thread; keep it short (signal the relay, do not run it)
     */
    public static Builder builder(DataSource dataSource, String channel, Runnable onNotification) {
        return new Builder(dataSource, channel, onNotification);
    }

    /** Whether the listener holds a connection that is LISTENing now. */
    public boolean isListening() {
        return listening;
    }

    /** The channel listened on. */
    public String channel() {
        return channel;
    }

    /**
     * Stops listening: the thread leaves its wait (within the poll timeout), runs {@code UNLISTEN *}
     * so a pooled connection goes back clean, and closes the connection.
     */
    @Override
    public void close() {
        running = false;
        closing.countDown();
        long waitMillis = pollTimeout.toMillis() + 5_000;
        try {
            if (!stopped.await(waitMillis, TimeUnit.MILLISECONDS)) {
                log.warn(
                        "outbox wake-up listener on channel {} did not stop within {} ms; closing its connection",
                        channel,
                        waitMillis);
                Connection connection = current;
                if (connection != null) {
                    closeQuietly(connection);
                }
                thread.interrupt();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void run() {
        long backoff = minBackoff.toMillis();
        boolean down = false;
        try {
            while (running) {
                try (Connection connection = dataSource.getConnection()) {
                    current = connection;
                    connection.setAutoCommit(true);
                    // A half-open socket (server gone without a FIN) must fail the keep-alive probe, not hang it.
                    connection.setNetworkTimeout(Runnable::run, (int)
                            Math.min(Integer.MAX_VALUE, pollTimeout.toMillis() + PROBE_TIMEOUT_MILLIS));
                    PGConnection pg = connection.unwrap(PGConnection.class);
                    try (Statement statement = connection.createStatement()) {
                        statement.execute("LISTEN " + Identifiers.quote(channel));
                        statement.execute("SET application_name = 'outbox-listener:" + channel + "'");
                    }
                    if (down) {
                        log.info(
                                "outbox wake-up listener on channel {} reconnected; waking the relay once for "
                                        + "notifications missed meanwhile",
                                channel);
                        notifyCallback();
                        down = false;
                    } else {
                        log.info("outbox wake-up listener on channel {} started", channel);
                    }
                    listening = true;
                    backoff = minBackoff.toMillis();
                    try {
                        listen(connection, pg);
                    } finally {
                        listening = false;
                        unlisten(connection, pg);
                    }
                } catch (SQLException | RuntimeException e) {
                    listening = false;
                    if (!running) {
                        break;
                    }
                    if (!down) {
                        log.warn(
                                "outbox wake-up listener on channel {} has no database connection ({}); polling "
                                        + "goes on, reconnecting with backoff up to {} ms",
                                channel,
                                e.getMessage(),
                                maxBackoff.toMillis());
                        down = true;
                    } else {
                        log.debug(
                                "outbox wake-up listener on channel {} still cannot connect: {}",
                                channel,
                                e.getMessage());
                    }
                    sleep(backoff);
                    backoff = Math.min(maxBackoff.toMillis(), backoff * 2);
                } finally {
                    listening = false;
                    current = null;
                }
            }
        } finally {
            log.info("outbox wake-up listener on channel {} stopped", channel);
            stopped.countDown();
        }
    }

    private void listen(Connection connection, PGConnection pg) throws SQLException {
        long lastActivity = System.nanoTime();
        int timeout = (int) Math.max(1, pollTimeout.toMillis());
        while (running) {
            PGNotification[] notifications = pg.getNotifications(timeout);
            if (notifications != null && notifications.length > 0) {
                notifyCallback();
                lastActivity = System.nanoTime();
            } else if (System.nanoTime() - lastActivity > keepAlive.toNanos()) {
                try (Statement statement = connection.createStatement()) {
                    statement.execute("SELECT 1");
                }
                lastActivity = System.nanoTime();
            }
        }
    }

    private void notifyCallback() {
        try {
            onNotification.run();
        } catch (RuntimeException e) {
            log.warn("outbox wake-up callback on channel {} threw; listening goes on", channel, e);
        }
    }

    /** Waits before reconnecting; returns at once when {@link #close()} is called. */
    private void sleep(long millis) {
        try {
            closing.await(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        }
    }

    /**
     * A connection that stays LISTENing without reading (say, idle in a pool) holds back the server's
     * notification queue until it fills; so stop listening and drop what was already received.
     */
    private static void unlisten(Connection connection, PGConnection pg) {
        try (Statement statement = connection.createStatement()) {
            statement.execute("UNLISTEN *");
            statement.execute("RESET application_name");
            pg.getNotifications();
        } catch (SQLException | RuntimeException ignored) {
            // the connection is broken; the pool (or the server) discards it
        }
    }

    private static void closeQuietly(Connection connection) {
        try {
            connection.close();
        } catch (SQLException | RuntimeException ignored) {
            // already broken
        }
    }

    /** Configures an {@link OutboxNotificationListener}; every setting has a documented default. */
    public static final class Builder {
        private final DataSource dataSource;
        private final String channel;
        private final Runnable onNotification;
        private Duration pollTimeout = DEFAULT_POLL_TIMEOUT;
        private Duration minBackoff = DEFAULT_MIN_BACKOFF;
        private Duration maxBackoff = DEFAULT_MAX_BACKOFF;
        private Duration keepAlive = DEFAULT_KEEP_ALIVE;

        private Builder(DataSource dataSource, String channel, Runnable onNotification) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
            this.channel = Identifiers.channel("notifyChannel", channel);
            this.onNotification = Objects.requireNonNull(onNotification, "onNotification");
        }

        /** Longest single wait for notifications (bounds how long {@link #close()} takes). Default 500 ms. */
        public Builder pollTimeout(Duration value) {
            this.pollTimeout = positive("pollTimeout", value);
            return this;
        }

        /** Reconnect delays: first {@code min}, doubling up to {@code max}. Default 100 ms to 10 s. */
        public Builder reconnectBackoff(Duration min, Duration max) {
            this.minBackoff = positive("reconnectBackoff", min);
            this.maxBackoff = positive("reconnectBackoff", max);
            if (max.compareTo(min) < 0) {
                throw new InvalidConfigurationException("reconnectBackoff", "max " + max + " is below min " + min);
            }
            return this;
        }

        /** Idle time after which the connection is probed. Default 15 s. */
        public Builder keepAlive(Duration value) {
            this.keepAlive = positive("keepAlive", value);
            return this;
        }

        /** Starts the listener's thread; it connects in the background (an unreachable database is retried). */
        public OutboxNotificationListener start() {
            OutboxNotificationListener listener = new OutboxNotificationListener(this);
            listener.thread.start();
            return listener;
        }

        private static Duration positive(String setting, Duration value) {
            if (value == null || value.isNegative() || value.isZero()) {
                throw new InvalidConfigurationException(setting, "must be a positive duration, was " + value);
            }
            return value;
        }
    }
}
