package dev.outboxjava.rabbitmq.internal;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.Recoverable;
import com.rabbitmq.client.RecoveryListener;
import com.rabbitmq.client.ShutdownSignalException;
import dev.outboxjava.core.OutboxEvent;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Owns the publisher's one AMQP connection. The first connection is made lazily and attempts are
 * spaced by the recovery interval; once connected, the client's automatic recovery reconnects after
 * a loss. Callers get the connection or a {@link BrokerUnavailableException} saying why not — never
 * a wait for the broker. State changes are logged once each.
 */
public final class ConnectionManager implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ConnectionManager.class);

    private final ConnectionFactory factory;
    private final String connectionName;
    private final String brokerDescription;
    private final long retryIntervalNanos;
    private volatile Connection connection;
    private volatile String downReason = "not connected yet";
    private long lastAttemptNanos;
    private boolean attempted;
    private boolean closed;

    public ConnectionManager(
            ConnectionFactory factory, String connectionName, String brokerDescription, Duration retryInterval) {
        this.factory = factory;
        this.connectionName = connectionName;
        this.brokerDescription = brokerDescription;
        this.retryIntervalNanos = retryInterval.toNanos();
    }

    /** The open connection, connecting first if there never was one. */
    public Connection connection() throws BrokerUnavailableException {
        Connection current = connection;
        if (current == null) {
            current = connect();
        }
        if (!current.isOpen()) {
            throw new BrokerUnavailableException("connection '" + connectionName + "' to RabbitMQ at "
                    + brokerDescription + " is down (" + downReason + "); the client reconnects automatically");
        }
        return current;
    }

    /** Whether a connection is open now. */
    public boolean isOpen() {
        Connection current = connection;
        return current != null && current.isOpen();
    }

    public String downReason() {
        return downReason;
    }

    private synchronized Connection connect() throws BrokerUnavailableException {
        if (closed) {
            throw new BrokerUnavailableException("the publisher is closed");
        }
        if (connection != null) {
            return connection;
        }
        long now = System.nanoTime();
        if (attempted && now - lastAttemptNanos < retryIntervalNanos) {
            throw new BrokerUnavailableException("RabbitMQ at " + brokerDescription + " is unreachable (" + downReason
                    + "); the next connection attempt is due within " + Duration.ofNanos(retryIntervalNanos));
        }
        attempted = true;
        lastAttemptNanos = now;
        try {
            Connection opened = factory.newConnection(connectionName);
            opened.addShutdownListener(this::onConnectionLost);
            if (opened instanceof Recoverable recoverable) {
                recoverable.addRecoveryListener(new RecoveryListener() {
                    @Override
                    public void handleRecovery(Recoverable recovered) {
                        log.info("RabbitMQ connection '{}' to {} recovered", connectionName, brokerDescription);
                    }

                    @Override
                    public void handleRecoveryStarted(Recoverable recovering) {
                        // the loss was logged by the shutdown listener
                    }
                });
            }
            opened.addBlockedListener(
                    reason -> log.warn(
                            "RabbitMQ blocked connection '{}' ({}): publishes wait until "
                                    + "the broker unblocks it, and batches may time out",
                            connectionName,
                            reason),
                    () -> log.info("RabbitMQ unblocked connection '{}'", connectionName));
            connection = opened;
            log.info("connected to RabbitMQ at {} as '{}'", brokerDescription, connectionName);
            int frameMax = opened.getFrameMax();
            if (frameMax != 0 && frameMax < OutboxEvent.ENVELOPE_RESERVE_BYTES) {
                // the broker's own frame_max: the client asked for more (or for no limit)
                log.error(
                        "RabbitMQ at {} limits frames to {} bytes (frame_max), but a message's properties must fit "
                                + "one frame and the largest event the outbox accepts takes up to {} for its headers, key and "
                                + "CloudEvents attributes: such events cannot be published. Raise the broker's frame_max "
                                + "(default 131072)",
                        brokerDescription,
                        frameMax,
                        OutboxEvent.ENVELOPE_RESERVE_BYTES);
            }
            return opened;
        } catch (IOException | TimeoutException | RuntimeException e) {
            String reason = describe(e);
            if (!reason.equals(downReason)) {
                log.warn(
                        "cannot connect to RabbitMQ at {} as '{}': {}; events stay pending and are retried",
                        brokerDescription,
                        connectionName,
                        reason);
            }
            downReason = reason;
            throw new BrokerUnavailableException("RabbitMQ at " + brokerDescription + " is unreachable: " + reason);
        }
    }

    private void onConnectionLost(ShutdownSignalException cause) {
        if (cause.isInitiatedByApplication()) {
            return;
        }
        downReason = describe(cause);
        log.warn(
                "RabbitMQ connection '{}' to {} lost: {}; reconnecting every {}",
                connectionName,
                brokerDescription,
                downReason,
                Duration.ofNanos(retryIntervalNanos));
    }

    static String describe(Throwable e) {
        if (e instanceof ShutdownSignalException signal && signal.getReason() != null) {
            return signal.getReason().toString();
        }
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getMessage();
        return root.getClass().getSimpleName() + (message != null ? ": " + message : "");
    }

    @Override
    public void close() {
        close(Duration.ofSeconds(5));
    }

    /**
     * Closes the connection, waiting up to {@code timeout} for the broker to answer; past that the
     * socket is dropped. No new connection is made afterwards.
     */
    public void close(Duration timeout) {
        Connection current;
        synchronized (this) {
            closed = true;
            current = connection;
        }
        if (current != null) {
            int millis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
            try {
                current.close(millis);
            } catch (IOException | RuntimeException e) {
                current.abort(millis);
            }
        }
    }
}
