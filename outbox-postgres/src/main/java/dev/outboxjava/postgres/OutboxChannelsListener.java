package dev.outboxjava.postgres;

import dev.outboxjava.postgres.internal.Identifiers;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One LISTEN connection for the outboxes of one database: listens on the channel of each outbox (the
 * channel its producers already notify, {@link PostgresOutboxConfig#notifyChannel()}) and tells which
 * channel was notified, so that a worker of many outboxes wakes only the outbox that has new events.
 *
 * <p>Channels are added and removed while it runs ({@link #listen(String)}, {@link #unlisten(String)});
 * the listener's thread applies the change before its next wait, within the poll timeout. Like
 * {@link OutboxNotificationListener} it holds ONE dedicated connection from the data source, probes it
 * when idle, and when the connection dies logs the outage once, reconnects with exponential backoff,
 * listens again on every channel and reports each channel once (notifications sent while it was away
 * are lost, so every outbox should look). The connection's {@code application_name} is
 * {@code outbox-listener:<name>}.
 */
public final class OutboxChannelsListener implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(OutboxChannelsListener.class);
    private static final long PROBE_TIMEOUT_MILLIS = 10_000;

    private final DataSource dataSource;
    private final String name;
    private final Consumer<String> onNotification;
    private final Duration pollTimeout = OutboxNotificationListener.DEFAULT_POLL_TIMEOUT;
    private final Duration minBackoff = OutboxNotificationListener.DEFAULT_MIN_BACKOFF;
    private final Duration maxBackoff = OutboxNotificationListener.DEFAULT_MAX_BACKOFF;
    private final Duration keepAlive = OutboxNotificationListener.DEFAULT_KEEP_ALIVE;
    /** The channels wanted now; the thread brings its connection's LISTENs in line before each wait. */
    private final Set<String> wanted = ConcurrentHashMap.newKeySet();

    private final Thread thread;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final CountDownLatch closing = new CountDownLatch(1);
    private volatile boolean running = true;
    private volatile boolean listening;
    private volatile Connection current;

    private OutboxChannelsListener(DataSource dataSource, String name, Consumer<String> onNotification) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.name = Objects.requireNonNull(name, "name").replaceAll("[^A-Za-z0-9_.-]", "_");
        this.onNotification = Objects.requireNonNull(onNotification, "onNotification");
        this.thread = new Thread(this::run, "outbox-listener-" + this.name);
        this.thread.setDaemon(true);
    }

    /**
     * Starts a listener with no channel yet; it connects in the background (an unreachable database is
     * retried).
     *
     * @param dataSource     where the dedicated connection comes from (held until {@link #close()})
     * @param name           names the listener in logs, its thread and {@code application_name} (e.g. the database's name)
     * @param onNotification called on the listener's thread with the channel notified; keep it short
     */
    public static OutboxChannelsListener start(DataSource dataSource, String name, Consumer<String> onNotification) {
        OutboxChannelsListener listener = new OutboxChannelsListener(dataSource, name, onNotification);
        listener.thread.start();
        return listener;
    }

    /**
     * Listens on {@code channel} too (from the next wait on, within the poll timeout).
     *
     * @throws dev.outboxjava.core.InvalidConfigurationException when the channel is not a valid channel name
     */
    public void listen(String channel) {
        wanted.add(Identifiers.channel("notifyChannel", channel));
    }

    /** Stops listening on {@code channel} (from the next wait on). */
    public void unlisten(String channel) {
        wanted.remove(channel);
    }

    /** Whether the listener holds a connection that is LISTENing now. */
    public boolean isListening() {
        return listening;
    }

    /** Stops listening: {@code UNLISTEN *}, then the connection goes back to the data source. */
    @Override
    public void close() {
        running = false;
        closing.countDown();
        long waitMillis = pollTimeout.toMillis() + 5_000;
        try {
            if (!stopped.await(waitMillis, TimeUnit.MILLISECONDS)) {
                log.warn(
                        "outbox wake-up listener {} did not stop within {} ms; closing its connection",
                        name,
                        waitMillis);
                Connection connection = current;
                if (connection != null) {
                    try {
                        connection.close();
                    } catch (SQLException | RuntimeException ignored) {
                        // already broken
                    }
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
                Set<String> listened = new LinkedHashSet<>();
                try (Connection connection = dataSource.getConnection()) {
                    current = connection;
                    connection.setAutoCommit(true);
                    // a half-open socket must fail the keep-alive probe, not hang it
                    connection.setNetworkTimeout(Runnable::run, (int)
                            Math.min(Integer.MAX_VALUE, pollTimeout.toMillis() + PROBE_TIMEOUT_MILLIS));
                    PGConnection pg = connection.unwrap(PGConnection.class);
                    try (Statement statement = connection.createStatement()) {
                        // the name holds only letters, digits, '_', '.' and '-' (see the constructor)
                        statement.execute("SET application_name = 'outbox-listener:" + name + "'");
                    }
                    follow(connection, listened);
                    if (down) {
                        log.info(
                                "outbox wake-up listener {} reconnected; waking each of its {} outbox(es) once for "
                                        + "notifications missed meanwhile",
                                name,
                                listened.size());
                        listened.forEach(this::notifyCallback);
                        down = false;
                    } else {
                        log.info("outbox wake-up listener {} started", name);
                    }
                    listening = true;
                    backoff = minBackoff.toMillis();
                    try {
                        listen(connection, pg, listened);
                    } finally {
                        listening = false;
                        unlistenAll(connection, pg);
                    }
                } catch (SQLException | RuntimeException e) {
                    listening = false;
                    if (!running) {
                        break;
                    }
                    if (!down) {
                        log.warn(
                                "outbox wake-up listener {} has no database connection ({}); polling goes on, "
                                        + "reconnecting with backoff up to {} ms",
                                name,
                                e.getMessage(),
                                maxBackoff.toMillis());
                        down = true;
                    } else {
                        log.debug("outbox wake-up listener {} still cannot connect: {}", name, e.getMessage());
                    }
                    sleep(backoff);
                    backoff = Math.min(maxBackoff.toMillis(), backoff * 2);
                } finally {
                    listening = false;
                    current = null;
                }
            }
        } finally {
            log.info("outbox wake-up listener {} stopped", name);
            stopped.countDown();
        }
    }

    /** Brings the connection's LISTENs in line with the wanted channels. */
    private void follow(Connection connection, Set<String> listened) throws SQLException {
        if (listened.equals(wanted)) {
            return;
        }
        try (Statement statement = connection.createStatement()) {
            for (String channel : Set.copyOf(wanted)) {
                if (listened.add(channel)) {
                    statement.execute("LISTEN " + Identifiers.quote(channel));
                }
            }
            for (String channel : Set.copyOf(listened)) {
                if (!wanted.contains(channel)) {
                    statement.execute("UNLISTEN " + Identifiers.quote(channel));
                    listened.remove(channel);
                }
            }
        }
    }

    private void listen(Connection connection, PGConnection pg, Set<String> listened) throws SQLException {
        long lastActivity = System.nanoTime();
        int timeout = (int) Math.max(1, pollTimeout.toMillis());
        while (running) {
            follow(connection, listened);
            PGNotification[] notifications = pg.getNotifications(timeout);
            if (notifications != null && notifications.length > 0) {
                Set<String> channels = new LinkedHashSet<>();
                for (PGNotification notification : notifications) {
                    channels.add(notification.getName());
                }
                channels.stream().filter(wanted::contains).forEach(this::notifyCallback);
                lastActivity = System.nanoTime();
            } else if (System.nanoTime() - lastActivity > keepAlive.toNanos()) {
                try (Statement statement = connection.createStatement()) {
                    statement.execute("SELECT 1");
                }
                lastActivity = System.nanoTime();
            }
        }
    }

    private void notifyCallback(String channel) {
        try {
            onNotification.accept(channel);
        } catch (RuntimeException e) {
            log.warn(
                    "outbox wake-up callback of listener {} threw for channel {}; listening goes on", name, channel, e);
        }
    }

    private void sleep(long millis) {
        try {
            closing.await(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        }
    }

    /** A pooled connection left LISTENing without reading would hold back the server's notification queue. */
    private static void unlistenAll(Connection connection, PGConnection pg) {
        try (Statement statement = connection.createStatement()) {
            statement.execute("UNLISTEN *");
            statement.execute("RESET application_name");
            pg.getNotifications();
        } catch (SQLException | RuntimeException ignored) {
            // the connection is broken; the pool (or the server) discards it
        }
    }
}
