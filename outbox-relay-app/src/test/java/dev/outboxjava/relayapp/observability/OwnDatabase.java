package dev.outboxjava.relayapp.observability;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.postgres.OutboxWriter;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.postgres.inbox.PostgresInbox;
import dev.outboxjava.postgres.inbox.PostgresInboxConfig;
import dev.outboxjava.testkit.postgres.PostgresFixture;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A database of its own (created on the shared server, dropped afterwards), so that the
 * database-wide signal "oldest open transaction" sees only this test's transactions, not those of
 * other tests running at the same time. Holds an outbox table and an inbox table.
 */
final class OwnDatabase implements AutoCloseable {

    private static final Pattern URL = Pattern.compile("(jdbc:postgresql://[^/]+/)([^?]*)(.*)");

    final PostgresFixture postgres;
    final String name;
    final String url;
    final PGSimpleDataSource dataSource = new PGSimpleDataSource();
    final String table = "outbox_events";
    final String inboxTable = "outbox_inbox";
    final PostgresOutboxStore store;

    OwnDatabase(PostgresFixture postgres) {
        this.postgres = postgres;
        this.name = "outbox_obs_"
                + UUID.randomUUID().toString().replace("-", "").substring(0, 10).toLowerCase(Locale.ROOT);
        Matcher matcher = URL.matcher(postgres.jdbcUrl());
        if (!matcher.matches()) {
            throw new IllegalStateException("unexpected JDBC URL " + postgres.jdbcUrl());
        }
        postgres.execute("CREATE DATABASE " + name);
        this.url = matcher.group(1) + name + matcher.group(3);
        dataSource.setUrl(url);
        dataSource.setUser(postgres.user());
        dataSource.setPassword(postgres.password());
        store = PostgresOutboxStore.create(
                dataSource, PostgresOutboxConfig.builder().tableName(table).build());
        store.ensureSchema();
        PostgresInbox.create(
                        dataSource,
                        PostgresInboxConfig.builder().tableName(inboxTable).build())
                .ensureSchema();
    }

    PostgresOutboxConfig storeConfig() {
        return PostgresOutboxConfig.builder()
                .tableName(table)
                .completionMode(CompletionMode.KEEP_SENT)
                .build();
    }

    Connection connect(String applicationName) throws SQLException {
        Connection connection = DriverManager.getConnection(url, postgres.user(), postgres.password());
        connection.setClientInfo("ApplicationName", applicationName);
        return connection;
    }

    List<UUID> append(int count, String type) throws SQLException {
        OutboxWriter writer = store.writer();
        List<OutboxEvent> events = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            events.add(OutboxEvent.builder()
                    .type(type)
                    .destination("orders")
                    .key("order-" + i)
                    .maxAttempts(1_000)
                    .payload(("{\"order\":" + i + "}").getBytes(StandardCharsets.UTF_8))
                    .build());
        }
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            List<UUID> ids = writer.append(connection, events).stream()
                    .map(OutboxEvent::id)
                    .toList();
            connection.commit();
            return ids;
        }
    }

    @Override
    public void close() {
        postgres.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
    }
}
