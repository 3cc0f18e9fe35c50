package dev.outboxjava.testkit.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxjava.testkit.EventFilter;
import dev.outboxjava.testkit.OutboxAssertions;
import dev.outboxjava.testkit.fixture.BrokerInbox;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A test that adds outbox-testkit-kafka alone: this module's test class path is what such a test gets,
 * so the fixture and the Kafka inbox must work without RabbitMQ, Qpid, PostgreSQL or zonky on it.
 */
@DisplayName("outbox-testkit-kafka on its own")
class KafkaTestkitAloneIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static KafkaFixture kafka;

    @BeforeAll
    static void start() {
        kafka = KafkaFixture.start();
    }

    @AfterAll
    static void stop() {
        if (kafka != null) {
            kafka.close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "com.rabbitmq.client.ConnectionFactory",
                "org.apache.qpid.server.SystemLauncher",
                "org.postgresql.Driver",
                "io.zonky.test.db.postgres.embedded.EmbeddedPostgres"
            })
    @DisplayName("brings no other broker or database")
    void bringsNoOtherEngine(String className) {
        assertThatThrownBy(() -> Class.forName(className)).isInstanceOf(ClassNotFoundException.class);
    }

    @Test
    @DisplayName("a Kafka inbox collects what arrives, without the AMQP client on the class path")
    void kafkaInbox() throws Exception {
        String topic = kafka.createTopic("alone", 1);
        try (BrokerInbox inbox = BrokerInbox.kafka(kafka.consumerProperties(), topic)) {
            String id = UUID.randomUUID().toString();
            Map<String, Object> config = Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                    kafka.bootstrapServers(),
                    ProducerConfig.ACKS_CONFIG,
                    "all",
                    ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
                    StringSerializer.class,
                    ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
                    ByteArraySerializer.class);
            try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(config)) {
                ProducerRecord<String, byte[]> record = new ProducerRecord<>(topic, "order-7", new byte[] {1});
                record.headers()
                        .add("ce_id", id.getBytes(StandardCharsets.UTF_8))
                        .add("ce_type", "order.placed".getBytes(StandardCharsets.UTF_8));
                producer.send(record).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            }

            assertThat(OutboxAssertions.awaitReceived(
                                    inbox, EventFilter.ofType("order.placed").withKey("order-7"), TIMEOUT)
                            .id())
                    .isEqualTo(id);
        } finally {
            kafka.deleteTopic(topic);
        }
    }
}
