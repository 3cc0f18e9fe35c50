package dev.outboxjava.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.outboxjava.benchmarks.internal.OutboxTables;
import dev.outboxjava.benchmarks.internal.Services;
import dev.outboxjava.benchmarks.internal.Stats;
import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.postgres.WakeUpMode;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Scenario 2, the relay of the reference blog posts, written as they write it: in one transaction
 * {@code SELECT … FOR UPDATE SKIP LOCKED LIMIT 100}, then per row a synchronous Kafka send that waits
 * for its acknowledgement and an {@code UPDATE}, then commit. Same table, same backlog, same broker
 * (acks=all, idempotent). It gets the fairest producer setting for this shape: {@code linger.ms=0}
 * (Kafka 4's default of 5 ms would add 5 ms to every row). Too slow to drain the whole backlog, so
 * it drains for a fixed time and the rate is rows marked per second.
 */
public final class BlogBaselineScenario {

    private static final int LIMIT = 100;
    /** Rows the unmeasured warm-up drains (or as many as it reaches within the drain window). */
    static final int WARM_UP_ROWS = 20_000;

    private final Services services;
    private final OutboxTables tables;
    private final BenchmarkConfig options;

    public BlogBaselineScenario(Services services, OutboxTables tables, BenchmarkConfig options) {
        this.services = services;
        this.tables = tables;
        this.options = options;
    }

    /** @return the median rows per second */
    public double run() {
        String topic = services.newTopic("blog", 6);
        try (HikariDataSource pool = services.newPool("blog", 2);
                KafkaProducer<String, byte[]> producer = new KafkaProducer<>(
                        Map.of(
                                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                                services.kafkaBootstrapServers(),
                                ProducerConfig.ACKS_CONFIG,
                                "all",
                                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                                true,
                                ProducerConfig.LINGER_MS_CONFIG,
                                0),
                        new StringSerializer(),
                        new ByteArraySerializer())) {
            PostgresOutboxStore store = tables.create("blog", CompletionMode.KEEP_SENT, WakeUpMode.NONE, pool);
            String table = store.config().tableName();
            List<Double> rates = new ArrayList<>();
            for (int run = -1; run < options.runs(); run++) {
                tables.truncate(store);
                // run -1 warms up (the JIT, the producer, the in-process broker), as the library's drain does
                tables.loadPending(store, run < 0 ? WARM_UP_ROWS : options.backlog(), topic);
                double rate;
                try (Connection connection = pool.getConnection()) {
                    rate = drain(connection, table, producer);
                }
                if (run >= 0) {
                    rates.add(rate);
                    Log.line("S2 run %d: blog relay %,.0f rows/s", run + 1, rate);
                }
            }
            tables.truncate(store);
            return Stats.median(rates);
        } catch (SQLException e) {
            throw new IllegalStateException("blog baseline failed: " + e.getMessage(), e);
        }
    }

    private double drain(Connection connection, String table, KafkaProducer<String, byte[]> producer)
            throws SQLException {
        long deadline = System.nanoTime() + options.drainWindow().toNanos();
        long start = System.nanoTime();
        long sent = 0;
        connection.setAutoCommit(false);
        try (PreparedStatement select = connection.prepareStatement("SELECT id, event_key, destination, payload FROM "
                        + table + " WHERE status = 'pending' ORDER BY seq LIMIT " + LIMIT + " FOR UPDATE SKIP LOCKED");
                PreparedStatement update = connection.prepareStatement(
                        "UPDATE " + table + " SET status = 'sent', sent_at = now() WHERE id = ?")) {
            while (System.nanoTime() < deadline) {
                int rows = 0;
                try (ResultSet rs = select.executeQuery()) {
                    while (rs.next()) {
                        UUID id = rs.getObject(1, UUID.class);
                        ProducerRecord<String, byte[]> record =
                                new ProducerRecord<>(rs.getString(3), rs.getString(2), rs.getBytes(4));
                        record.headers().add("ce_id", id.toString().getBytes(StandardCharsets.UTF_8));
                        producer.send(record).get();
                        update.setObject(1, id);
                        update.executeUpdate();
                        rows++;
                    }
                }
                connection.commit();
                sent += rows;
                if (rows == 0) {
                    break;
                }
            }
        } catch (ExecutionException e) {
            connection.rollback();
            throw new IllegalStateException("Kafka refused a blog-baseline send: " + e.getCause(), e);
        } catch (InterruptedException e) {
            connection.rollback();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } finally {
            connection.setAutoCommit(true);
        }
        return sent / ((System.nanoTime() - start) / 1e9);
    }
}
