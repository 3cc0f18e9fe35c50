package dev.outboxjava.postgres;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.OutboxStoreException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Runs the caller's domain work and the append of the events it causes in ONE transaction on a
 * {@link DataSource}: both commit, or — when the work or the append throws — both roll back.
 *
 * <pre>{@code
 * TransactionalOutbox outbox = TransactionalOutbox.create(dataSource, PostgresOutboxConfig.ofDefaults());
 * outbox.inTransaction(connection -> {
 *     insertOrder(connection, order);
 *     return List.of(orderPlacedEvent(order));
 * });
 * }</pre>
 *
 * <p>With {@link WakeUpMode#NOTIFY_AFTER_COMMIT} (the default) every commit that appended events
 * signals an {@link OutboxNotifier}, so relays listening on the channel wake at once while the commit
 * itself pays nothing for it. {@link #close()} stops the notifier's thread. Thread-safe; keep one per
 * data source and configuration.
 */
public final class TransactionalOutbox implements AutoCloseable {

    /** The caller's domain work: writes through the connection and returns the events it causes. */
    @FunctionalInterface
    public interface Work {
        /**
         * @param connection the transaction's connection; do not commit, roll back or close it
         * @return the events to append in the same transaction (may be empty)
         */
        List<OutboxEvent> execute(Connection connection) throws SQLException;
    }

    private final DataSource dataSource;
    private final OutboxWriter writer;
    private final Optional<OutboxNotifier> notifier;
    private final Runnable afterCommit;

    private TransactionalOutbox(
            DataSource dataSource, OutboxWriter writer, Optional<OutboxNotifier> notifier, Runnable afterCommit) {
        this.dataSource = dataSource;
        this.writer = writer;
        this.notifier = notifier;
        this.afterCommit = afterCommit;
    }

    /**
     * A helper appending to the configured table through connections of {@code dataSource}; in
     * {@link WakeUpMode#NOTIFY_AFTER_COMMIT} it notifies the table's channel after each commit
     * (from a connection of the same data source).
     */
    public static TransactionalOutbox create(DataSource dataSource, PostgresOutboxConfig config) {
        Objects.requireNonNull(dataSource, "dataSource");
        Optional<OutboxNotifier> notifier = config.wakeUpMode() == WakeUpMode.NOTIFY_AFTER_COMMIT
                ? Optional.of(OutboxNotifier.builder(dataSource, config.notifyChannel())
                        .minimumInterval(config.notifyMinimumInterval())
                        .start())
                : Optional.empty();
        return new TransactionalOutbox(dataSource, OutboxWriter.create(config), notifier, () -> {});
    }

    /**
     * The same helper, also running {@code action} after each commit that appended events — with
     * {@link WakeUpMode#IN_PROCESS}, the worker's in-process wake-up: {@code afterCommit(worker.wakeUp()::signal)}.
     * It shares this helper's notifier (closing either stops it).
     */
    public TransactionalOutbox afterCommit(Runnable action) {
        Objects.requireNonNull(action, "action");
        return new TransactionalOutbox(dataSource, writer, notifier, action);
    }

    /** The notifier signalled after each commit, when the wake-up mode is {@link WakeUpMode#NOTIFY_AFTER_COMMIT}. */
    public Optional<OutboxNotifier> notifier() {
        return notifier;
    }

    /**
     * Opens a transaction, runs {@code work}, appends the events it returns and commits.
     *
     * @return the appended events, as {@link OutboxWriter#append(Connection, List)} returns them
     * @throws RuntimeException whatever {@code work} threw (unchecked exceptions unchanged), after rollback
     * @throws OutboxStoreException when the work threw {@link SQLException}, or the append or commit failed
     *         (after rollback)
     */
    public List<OutboxEvent> inTransaction(Work work) {
        Objects.requireNonNull(work, "work");
        try (Connection connection = dataSource.getConnection()) {
            boolean autoCommit = connection.getAutoCommit();
            connection.setAutoCommit(false);
            try {
                List<OutboxEvent> events;
                try {
                    events = work.execute(connection);
                } catch (SQLException e) {
                    rollback(connection, e);
                    throw new OutboxStoreException(
                            "the domain work failed, so its rows and events were rolled " + "back: " + e.getMessage(),
                            e);
                }
                Objects.requireNonNull(events, "the work returned null; return List.of() when there are no events");
                List<OutboxEvent> appended = writer.append(connection, events);
                connection.commit();
                if (!appended.isEmpty()) {
                    notifier.ifPresent(OutboxNotifier::signal);
                    afterCommit.run();
                }
                return appended;
            } catch (RuntimeException | Error e) {
                rollback(connection, e);
                throw e;
            } catch (SQLException e) {
                rollback(connection, e);
                throw new OutboxStoreException(
                        "could not commit the domain work and its events (outbox table "
                                + writer.config().tableName() + "): " + e.getMessage()
                                + "; both were rolled back, unless "
                                + "the connection broke during the commit, in which case check whether it landed",
                        e);
            } finally {
                restore(connection, autoCommit);
            }
        } catch (SQLException e) {
            throw new OutboxStoreException(
                    "could not get a connection from the data source for outbox table "
                            + writer.config().tableName() + ": " + e.getMessage(),
                    e);
        }
    }

    /** Stops the notifier's thread (appends made afterwards still work; they just notify no one). */
    @Override
    public void close() {
        notifier.ifPresent(OutboxNotifier::close);
    }

    private static void rollback(Connection connection, Throwable cause) {
        try {
            connection.rollback();
        } catch (SQLException rollbackFailure) {
            cause.addSuppressed(rollbackFailure);
        }
    }

    private static void restore(Connection connection, boolean autoCommit) {
        try {
            connection.setAutoCommit(autoCommit);
        } catch (SQLException ignored) {
            // the connection is broken; the pool discards it
        }
    }
}
