package dev.outboxjava.examples.datasource;

import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.PublishOutcome;
import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.worker.OutboxWorker;
import dev.outboxjava.worker.OutboxWorkerConfig;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A service that already has a {@code DataSource}: it appends an event with headers in its transaction
 * and runs the worker on the same data source, built without Guice ({@link OutboxWorker#builder()}), with
 * no pool of the library's own. Its publisher here only records what it was given; a real service passes
 * {@code KafkaPublisher} or {@code RabbitMqPublisher}.
 *
 * <p>{@code java -cp … DataSourceService <jdbc url> <user> [password]} exits 0 once the event was published with its
 * headers intact.
 */
public final class DataSourceService {

    private DataSourceService() {}

    public static void main(String[] args) throws Exception {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setUrl(args[0]);
        dataSource.setUser(args[1]);
        dataSource.setPassword(args.length > 2 ? args[2] : "");
        String schema = "outbox_ds_" + Long.toHexString(System.nanoTime());
        execute(dataSource, "CREATE SCHEMA " + schema);
        try {
            Map<String, String> published = run(dataSource, schema + ".outbox_events");
            System.out.println("published with headers " + published);
        } finally {
            execute(dataSource, "DROP SCHEMA " + schema + " CASCADE");
        }
    }

    /** Appends one event with headers and relays it; returns the headers the publisher received. */
    static Map<String, String> run(DataSource dataSource, String table) throws Exception {
        PostgresOutboxConfig config =
                PostgresOutboxConfig.builder().tableName(table).build();
        Map<String, String> headers = Map.of("tenant", "acme \"north\"", "trace", "ünïcode\n2");
        CountDownLatch sent = new CountDownLatch(1);
        AtomicReference<Map<String, String>> received = new AtomicReference<>();
        Publisher recording = new Publisher() {
            @Override
            public CompletableFuture<List<PublishOutcome>> publish(List<OutboxEvent> batch, Duration timeout) {
                received.set(batch.get(0).headers());
                sent.countDown();
                return CompletableFuture.completedFuture(batch.stream()
                        .map(event -> PublishOutcome.published(event.id()))
                        .toList());
            }

            @Override
            public HealthCheck checkHealth() {
                return HealthCheck.up("recording");
            }

            @Override
            public void close() {}
        };
        try (PostgresOutboxStore store = PostgresOutboxStore.create(dataSource, config)) {
            store.ensureSchema();
            try (Connection connection = dataSource.getConnection()) {
                connection.setAutoCommit(false);
                store.writer()
                        .append(
                                connection,
                                List.of(OutboxEvent.builder()
                                        .type("order.placed")
                                        .destination("orders")
                                        .key("order-1")
                                        .headers(headers)
                                        .payload("{\"order\":1}".getBytes(StandardCharsets.UTF_8))
                                        .build()));
                connection.commit();
            }
            try (OutboxWorker worker = OutboxWorker.builder()
                    .postgres(store)
                    .publisher(recording)
                    .config(OutboxWorkerConfig.ofDefaults())
                    .build()) {
                worker.start();
                if (!sent.await(60, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the worker published nothing within 60 s");
                }
            }
        }
        if (!headers.equals(received.get())) {
            throw new IllegalStateException("headers changed on the way: " + received.get());
        }
        return received.get();
    }

    private static void execute(DataSource dataSource, String sql) throws SQLException {
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }
}
