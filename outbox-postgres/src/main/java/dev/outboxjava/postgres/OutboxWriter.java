package dev.outboxjava.postgres;

import dev.outboxjava.core.AppendableEvents;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.PayloadSerializer;
import dev.outboxjava.postgres.internal.EventInsert;
import dev.outboxjava.postgres.internal.JooqBanner;
import dev.outboxjava.postgres.internal.LogLayoutDdl;
import dev.outboxjava.postgres.internal.OutboxTable;
import dev.outboxjava.postgres.tracing.TraceContextHeaders;
import java.sql.Connection;
import java.util.List;
import java.util.Objects;
import org.jooq.Configuration;
import org.jooq.DSLContext;

/**
 * Appends events inside the CALLER's transaction: the events commit with the caller's domain rows
 * or vanish with their rollback. The writer never commits, rolls back or touches auto-commit.
 *
 * <p>Many events in one call are one multi-row INSERT — one round trip (per 1,000 events) — and
 * nothing is read back, so an append costs what a hand-written INSERT of the same row costs.
 *
 * <pre>{@code
 * OutboxWriter outbox = OutboxWriter.create(PostgresOutboxConfig.ofDefaults());
 * connection.setAutoCommit(false);
 * insertOrder(connection, order);
 * outbox.append(connection, List.of(orderPlaced));
 * connection.commit();
 * }</pre>
 *
 * <p>When an OpenTelemetry span is current (and {@code opentelemetry-api} is on the classpath), each
 * event gets the span's W3C {@code traceparent} / {@code tracestate} as headers (unless it has its own),
 * so the message continues the caller's trace; see {@link TraceContextHeaders}.
 *
 * Thread-safe; keep one per configuration.
 */
public final class OutboxWriter {

    static {
        JooqBanner.silence();
    }

    private final EventInsert insert;
    private final PostgresOutboxConfig config;
    private final PayloadSerializer serializer;

    private OutboxWriter(PostgresOutboxConfig config, PayloadSerializer serializer) {
        this.config = config;
        this.serializer = serializer;
        OutboxTable table = new OutboxTable(config.table());
        this.insert = config.layout() == StoreLayout.APPEND_LOG
                ? new EventInsert(table, LogLayoutDdl.idTakenFunction(config.table()))
                : new EventInsert(table);
    }

    /**
     * A writer for the configured table, whose {@link #event(Object)} serializes to JSON
     * ({@link JsonPayloadSerializer#ofDefaults()}, which needs {@code jackson-databind} on the class path).
     */
    public static OutboxWriter create(PostgresOutboxConfig config) {
        // the shared JSON mapper is only built when an event() is first serialized, and Jackson only loaded then
        return new OutboxWriter(Objects.requireNonNull(config, "config"), (destination, value) -> {
            try {
                return JsonPayloadSerializer.ofDefaults().serialize(destination, value);
            } catch (NoClassDefFoundError e) {
                throw new IllegalStateException(
                        "serializing an event object as JSON needs com.fasterxml.jackson.core:jackson-databind on the"
                                + " class path; add it, or create the writer with OutboxWriter.create(config, serializer),"
                                + " or give the builder the payload's bytes",
                        e);
            }
        });
    }

    /**
     * A writer for the configured table whose {@link #event(Object)} serializes with {@code serializer}
     * (e.g. a schema registry's, or {@link JsonPayloadSerializer#of} with the application's mapper).
     */
    public static OutboxWriter create(PostgresOutboxConfig config, PayloadSerializer serializer) {
        return new OutboxWriter(
                Objects.requireNonNull(config, "config"), Objects.requireNonNull(serializer, "serializer"));
    }

    /** The configuration this writer appends with. */
    public PostgresOutboxConfig config() {
        return config;
    }

    /** The serializer of {@link #event(Object)}. */
    public PayloadSerializer payloadSerializer() {
        return serializer;
    }

    /**
     * A new event whose payload is {@code payload}, serialized by this writer's {@link #payloadSerializer()}
     * when the event is built (its content type the serializer's); set at least its type and destination:
     *
     * <pre>{@code
     * outbox.append(connection, List.of(outbox.event(new OrderPlaced(orderId, sku))
     *         .type("shop.order.placed").destination("orders").key(orderId.toString())
     *         .build()));
     * }</pre>
     *
     * For bytes serialized some other way, use {@link OutboxEvent.Builder#payload(byte[])}.
     */
    public OutboxEvent.Builder event(Object payload) {
        return OutboxEvent.builder().payload(payload, serializer);
    }

    /**
     * Appends events on a JDBC connection, in whatever transaction it is in.
     *
     * @param events new events from {@link OutboxEvent#builder()}
     * @return the events as appended, with the trace-context headers added. Their sequences are not
     *         read back (they stay 0): that cost saturated producers about 6 % of their transactions,
     *         and the database's order is the relay's business; {@code store.find(id)} has it
     * @throws dev.outboxjava.core.OutboxStoreException when the INSERT fails (the transaction is then
     *         aborted on the server: roll it back)
     * @throws dev.outboxjava.core.InvalidEventException naming the field, before anything reaches the
     *         database (the transaction stays usable), when {@code events} or an element is null, an event
     *         is not a new pending one or breaks a content rule of {@link OutboxEvent#builder()}
     */
    public List<OutboxEvent> append(Connection connection, List<OutboxEvent> events) {
        Objects.requireNonNull(connection, "connection");
        AppendableEvents.require(events);
        return insert.insert(connection, TraceContextHeaders.withCurrentTraceContext(List.copyOf(events)));
    }

    /** Appends events through a jOOQ context, in the transaction its configuration is in. See {@link #append(Connection, List)}. */
    public List<OutboxEvent> append(DSLContext dsl, List<OutboxEvent> events) {
        return append(dsl.configuration(), events);
    }

    /**
     * Appends events through a jOOQ configuration — e.g. the one {@code dsl.transaction(cfg -> ...)} hands
     * you. See {@link #append(Connection, List)}. The INSERT runs on the connection the configuration's
     * {@link org.jooq.ConnectionProvider} provides (the transaction's own inside {@code dsl.transaction}),
     * as plain JDBC: the configuration's execute listeners do not see it.
     */
    public List<OutboxEvent> append(Configuration configuration, List<OutboxEvent> events) {
        Objects.requireNonNull(configuration, "configuration");
        AppendableEvents.require(events);
        return insert.insert(
                configuration.connectionProvider(), TraceContextHeaders.withCurrentTraceContext(List.copyOf(events)));
    }
}
