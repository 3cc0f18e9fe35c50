package dev.outboxjava.examples.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.postgres.OutboxWriter;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.PostgresSchema;
import dev.outboxjava.testkit.kafka.KafkaFixture;
import dev.outboxjava.testkit.postgres.PostgresFixture;
import dev.outboxjava.worker.OutboxWorker;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.function.BiFunction;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The README's embedded relay, run as shown: a real PostgreSQL and the testkit's Kafka broker (in this JVM
 * when no other is configured), an event appended in a committed transaction, the record consumed from Kafka.
 */
@DisplayName("The embedded relay")
class EmbeddedRelayIT {

    private static PostgresFixture postgres;
    private static KafkaFixture kafka;

    @BeforeAll
    static void startServices() {
        postgres = PostgresFixture.start();
        kafka = KafkaFixture.start();
    }

    @AfterAll
    static void stopServices() {
        kafka.close();
        postgres.close();
    }

    @Test
    @DisplayName("wired with the worker's Guice modules publishes a committed event to Kafka")
    void withGuice() throws SQLException {
        relaysAnAppendedEvent(
                (dataSource, outbox) -> EmbeddedRelay.withGuice(dataSource, outbox, kafka.bootstrapServers()));
    }

    @Test
    @DisplayName("built without Guice publishes a committed event to Kafka")
    void withBuilder() throws SQLException {
        relaysAnAppendedEvent(
                (dataSource, outbox) -> EmbeddedRelay.withBuilder(dataSource, outbox, kafka.bootstrapServers()));
    }

    private static void relaysAnAppendedEvent(BiFunction<DataSource, PostgresOutboxConfig, OutboxWorker> relay)
            throws SQLException {
        DataSource dataSource = postgres.dataSource();
        PostgresOutboxConfig outbox = PostgresOutboxConfig.builder()
                .tableName(postgres.newTableName())
                .build();
        PostgresSchema.apply(dataSource, outbox);
        String topic = kafka.createTopic("orders", 1);
        String orderId = UUID.randomUUID().toString();

        try (OutboxWorker worker = relay.apply(dataSource, outbox)) {
            OutboxWriter writer = OutboxWriter.create(outbox);
            try (Connection connection = dataSource.getConnection()) {
                connection.setAutoCommit(false);
                writer.append(
                        connection,
                        List.of(OutboxEvent.builder()
                                .type("order.placed")
                                .key(orderId)
                                .destination(topic)
                                .payload(("{\"orderId\":\"" + orderId + "\"}").getBytes(StandardCharsets.UTF_8))
                                .build()));
                connection.commit();
            }

            List<ConsumerRecord<String, byte[]>> records = kafka.consume(topic, 1, Duration.ofSeconds(30));

            assertThat(records).hasSize(1);
            assertThat(records.get(0).key()).isEqualTo(orderId);
            assertThat(new String(records.get(0).value(), StandardCharsets.UTF_8))
                    .contains(orderId);
            assertThat(worker.isRunning()).isTrue();
        } finally {
            kafka.deleteTopic(topic);
        }
    }
}
