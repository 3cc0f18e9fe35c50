package dev.outboxjava.spring.boot;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.OutboxException;
import dev.outboxjava.postgres.OutboxWriter;
import java.sql.Connection;
import java.util.List;
import java.util.Objects;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Appends events in the application's current Spring-managed transaction: they commit with the
 * business rows written in it and vanish with its rollback. Inject it and call it from a
 * {@code @Transactional} method (or a {@code TransactionTemplate}):
 *
 * <pre>{@code
 * @Transactional
 * public void placeOrder(Order order) {
 *     orders.save(order);
 *     outbox.append(OrderPlaced.of(order));
 * }
 * }</pre>
 *
 * <p>The INSERT runs on the transaction's own connection ({@link DataSourceUtils}), which JDBC
 * ({@code JdbcTemplate}, {@code JdbcClient}), JPA/Hibernate ({@code JpaTransactionManager}) and jOOQ's
 * Spring integration all share. With no transaction active it throws instead of committing the event
 * on its own. After the commit the relay is woken (a transaction synchronization), so the event goes
 * out at once instead of at the next poll. Thread-safe.
 */
public final class SpringOutbox {

    private final DataSource dataSource;
    private final OutboxWriter writer;
    private final Runnable afterCommit;
    private final UnaryOperator<List<OutboxEvent>> traceContext;

    /**
     * @param afterCommit   run once after each commit that appended events (wakes the relay)
     * @param traceContext  adds the current span's trace context to events that have none
     */
    SpringOutbox(
            DataSource dataSource,
            OutboxWriter writer,
            Runnable afterCommit,
            UnaryOperator<List<OutboxEvent>> traceContext) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.writer = Objects.requireNonNull(writer, "writer");
        this.afterCommit = Objects.requireNonNull(afterCommit, "afterCommit");
        this.traceContext = Objects.requireNonNull(traceContext, "traceContext");
    }

    /**
     * Appends one event in the current transaction.
     *
     * @return the event as appended (with trace-context headers added)
     * @throws OutboxException when no Spring transaction is active
     */
    public OutboxEvent append(OutboxEvent event) {
        return append(List.of(Objects.requireNonNull(event, "event"))).get(0);
    }

    /**
     * Appends events in the current transaction, in one multi-row INSERT.
     *
     * @return the events as appended (with trace-context headers added)
     * @throws OutboxException when no Spring transaction is active
     * @throws dev.outboxjava.core.InvalidEventException naming the field, before anything reaches the database
     * @throws dev.outboxjava.core.OutboxStoreException when the INSERT fails (the transaction must roll back)
     */
    public List<OutboxEvent> append(List<OutboxEvent> events) {
        if (!TransactionSynchronizationManager.isActualTransactionActive()
                || !TransactionSynchronizationManager.isSynchronizationActive()) {
            throw new OutboxException("no Spring transaction is active: append events inside a @Transactional method "
                    + "(or TransactionTemplate.execute) that also writes the business rows, so that both commit or "
                    + "roll back together; outside one the event would commit on its own");
        }
        if (TransactionSynchronizationManager.isCurrentTransactionReadOnly()) {
            throw new OutboxException("the current Spring transaction is read-only: append events in a read-write "
                    + "transaction (@Transactional without readOnly = true)");
        }
        Connection connection = DataSourceUtils.getConnection(dataSource);
        try {
            List<OutboxEvent> appended = writer.append(connection, traceContext.apply(List.copyOf(events)));
            if (!appended.isEmpty()) {
                wakeAfterCommit();
            }
            return appended;
        } finally {
            DataSourceUtils.releaseConnection(connection, dataSource);
        }
    }

    /** Cheap to repeat: the wake-ups of several appends in one transaction coalesce in the relay. */
    private void wakeAfterCommit() {
        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
            @Override
            public void afterCommit() {
                afterCommit.run();
            }
        });
    }
}
