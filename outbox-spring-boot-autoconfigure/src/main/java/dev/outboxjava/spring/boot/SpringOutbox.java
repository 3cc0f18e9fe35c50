package dev.outboxjava.spring.boot;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.OutboxException;
import dev.outboxjava.core.PayloadSerializer;
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
 *     outbox.append(new OrderPlaced(order.id(), order.sku()));   // a type with a route, e.g. @OutboxRoute
 * }
 * }</pre>
 *
 * <p>An event object is serialized by the application's {@link PayloadSerializer} (JSON by its
 * {@code JsonMapper} unless it defines one) and sent where its type's route says ({@link OutboxRoute},
 * an {@link EventRoute} bean or {@code outbox.routes}). Publishing it with
 * {@code ApplicationEventPublisher.publishEvent(...)} does the same. {@link #event(Object)} starts an
 * {@link OutboxEvent} with the serialized payload for everything else set by hand, and
 * {@link #append(OutboxEvent)} takes one built entirely by hand, bytes and all.
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
    private final PayloadSerializer serializer;
    private final OutboxEventRouter router;

    /**
     * @param afterCommit   run once after each commit that appended events (wakes the relay)
     * @param traceContext  adds the current span's trace context to events that have none
     */
    SpringOutbox(
            DataSource dataSource,
            OutboxWriter writer,
            Runnable afterCommit,
            UnaryOperator<List<OutboxEvent>> traceContext,
            PayloadSerializer serializer,
            OutboxEventRouter router) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.writer = Objects.requireNonNull(writer, "writer");
        this.afterCommit = Objects.requireNonNull(afterCommit, "afterCommit");
        this.traceContext = Objects.requireNonNull(traceContext, "traceContext");
        this.serializer = Objects.requireNonNull(serializer, "serializer");
        this.router = Objects.requireNonNull(router, "router");
    }

    /**
     * Appends one of the application's event objects in the current transaction, where its type's route
     * sends it ({@link OutboxRoute}, an {@link EventRoute} bean, {@code outbox.routes}), its payload
     * serialized by the application's {@link PayloadSerializer}.
     *
     * @return the event as appended
     * @throws OutboxException when no Spring transaction is active, or the event's type has no route
     * @throws dev.outboxjava.core.InvalidEventException when the payload cannot be serialized or the route
     *         gives an unusable field, before anything reaches the database
     */
    public OutboxEvent append(Object event) {
        Objects.requireNonNull(event, "event");
        if (event instanceof OutboxEvent built) {
            return append(built);
        }
        return append(List.of(router.toOutboxEvent(event, serializer))).get(0);
    }

    /**
     * A new event whose payload is {@code payload}, serialized by the application's
     * {@link PayloadSerializer} when the event is built (its content type the serializer's); set at least
     * its type and destination, then {@link #append(OutboxEvent)} it.
     */
    public OutboxEvent.Builder event(Object payload) {
        return OutboxEvent.builder().payload(payload, serializer);
    }

    /** The serializer of event objects: the application's {@link PayloadSerializer} bean, or JSON by its {@code JsonMapper}. */
    public PayloadSerializer payloadSerializer() {
        return serializer;
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
