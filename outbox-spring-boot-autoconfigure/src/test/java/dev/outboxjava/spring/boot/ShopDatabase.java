package dev.outboxjava.spring.boot;

import dev.outboxjava.testkit.postgres.PostgresFixture;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** A schema of its own on the test database for one test class: the shop's tables and the outbox table. */
final class ShopDatabase {

    static final PostgresFixture postgres = PostgresFixture.shared();

    final String schema = postgres.newSchema();
    final String table = schema + ".outbox_events";

    /** The Spring properties of a shop on this schema. */
    Map<String, String> properties() {
        String url = postgres.jdbcUrl() + (postgres.jdbcUrl().contains("?") ? "&" : "?") + "currentSchema=" + schema;
        return Map.of(
                "spring.datasource.url",
                url,
                "spring.datasource.username",
                postgres.user(),
                "spring.datasource.password",
                postgres.password(),
                "spring.flyway.schemas",
                schema,
                "spring.flyway.locations",
                "classpath:db/shop",
                "outbox.table",
                table,
                // the tests read and set the status column of the in-place table
                "outbox.store.layout",
                "in-place",
                "spring.jpa.hibernate.ddl-auto",
                "validate",
                "spring.jpa.open-in-view",
                "false",
                "spring.liquibase.enabled",
                "false");
    }

    String[] propertyValues(String... more) {
        List<String> values = new ArrayList<>();
        properties().forEach((key, value) -> values.add(key + "=" + value));
        values.addAll(List.of(more));
        return values.toArray(String[]::new);
    }

    long count(String sql, Object... parameters) {
        try (Connection connection = postgres.openConnection();
                PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                statement.setObject(i + 1, parameters[i]);
            }
            try (ResultSet rows = statement.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(sql + ": " + e.getMessage(), e);
        }
    }

    long events(String status) {
        return count("SELECT count(*) FROM " + table + " WHERE status = ?", status);
    }

    long eventsOfOrder(UUID orderId) {
        return count("SELECT count(*) FROM " + table + " WHERE event_key = ?", orderId.toString());
    }

    long orders(UUID orderId) {
        return count("SELECT count(*) FROM " + schema + ".orders WHERE id = ?", orderId)
                + count("SELECT count(*) FROM " + schema + ".order_lines WHERE order_id = ?", orderId);
    }

    void execute(String sql) {
        postgres.execute(sql);
    }

    void drop() {
        postgres.dropSchema(schema);
    }
}
