package dev.outboxjava.worker.testsupport;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.postgres.OutboxWriter;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.postgres.StoreLayout;
import dev.outboxjava.testkit.postgres.PostgresFixture;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** A fresh outbox table in its own schema of the real PostgreSQL, and the test's view of it. */
public final class OutboxTable implements AutoCloseable {

    public final PostgresFixture postgres;
    public final String schema;
    public final String name;
    public final PostgresOutboxStore store;

    public OutboxTable(PostgresFixture postgres) {
        this.postgres = postgres;
        this.schema = postgres.newSchema();
        this.name = schema + ".outbox_events";
        this.store = PostgresOutboxStore.create(
                postgres.dataSource(),
                PostgresOutboxConfig.builder().tableName(name).build());
        store.ensureSchema();
    }

    /** Appends {@code count} events for {@code destination}, committed in transactions of 1,000. */
    public List<UUID> append(int count, String destination, String type) throws SQLException {
        OutboxWriter writer = store.writer();
        List<UUID> ids = new ArrayList<>();
        try (Connection connection = postgres.dataSource().getConnection()) {
            connection.setAutoCommit(false);
            for (int start = 0; start < count; start += 1000) {
                writer.append(connection, events(start, Math.min(count, start + 1000), destination, type))
                        .forEach(event -> ids.add(event.id()));
                connection.commit();
            }
        }
        return ids;
    }

    /** New events for orders {@code from} (inclusive) to {@code to} (exclusive), keyed {@code order-(i % 50)}. */
    public List<OutboxEvent> events(int from, int to, String destination, String type) {
        List<OutboxEvent> events = new ArrayList<>();
        for (int i = from; i < to; i++) {
            events.add(OutboxEvent.builder()
                    .type(type)
                    .destination(destination)
                    .key("order-" + (i % 50))
                    .routingKey("orders.placed")
                    .payload(("{\"order\":" + i + "}").getBytes(StandardCharsets.UTF_8))
                    .build());
        }
        return events;
    }

    /**
     * Where a test reads the events with their status, attempts and errors: the table itself in the in-place
     * layout, the view of every event ({@code <table>_events}) in the append-only one (whose log keeps each
     * event as appended).
     */
    public String eventsRelation() {
        return store.config().layout() == StoreLayout.APPEND_LOG ? name + "_events" : name;
    }

    /** {@code SELECT status, count(*)} straight from the database. */
    public Map<EventStatus, Long> countsBySql() throws SQLException {
        Map<EventStatus, Long> counts = new EnumMap<>(EventStatus.class);
        for (EventStatus status : EventStatus.values()) {
            counts.put(status, 0L);
        }
        try (Connection connection = postgres.dataSource().getConnection();
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(
                        "SELECT status, count(*) FROM " + eventsRelation() + " GROUP BY status")) {
            while (rows.next()) {
                counts.put(EventStatus.fromDatabaseValue(rows.getString(1)), rows.getLong(2));
            }
        }
        return counts;
    }

    public long count(EventStatus status) throws SQLException {
        return countsBySql().get(status);
    }

    @Override
    public void close() {
        postgres.dropSchema(schema);
    }
}
