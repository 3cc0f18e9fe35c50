package dev.outboxjava.examples.payloads;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.Delivery;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.RetryPolicy;
import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.core.relay.Relay;
import dev.outboxjava.core.relay.RelayConfig;
import dev.outboxjava.core.relay.RelayListener;
import dev.outboxjava.examples.orders.OrderPlaced;
import dev.outboxjava.kafka.KafkaPublisher;
import dev.outboxjava.kafka.KafkaPublisherConfig;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.rabbitmq.RabbitMqPublisher;
import dev.outboxjava.rabbitmq.RabbitMqPublisherConfig;
import dev.outboxjava.testkit.kafka.KafkaFixture;
import dev.outboxjava.testkit.postgres.PostgresExtension;
import dev.outboxjava.testkit.rabbitmq.RabbitMqDestination;
import dev.outboxjava.testkit.rabbitmq.RabbitMqFixture;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A payload in a schema registry's wire format (magic byte 0, 4-byte schema id, Avro binary),
 * serialized at append, arrives byte for byte on Kafka and on RabbitMQ through the real outbox
 * table and relay, and decodes to the record that was appended.
 */
@DisplayName("Payload formats: a schema-registry Avro payload arrives byte for byte")
class RegistryPayloadIT {

    @RegisterExtension
    static final PostgresExtension postgres = new PostgresExtension();

    /** What the registry would have answered when the schema was registered. */
    private static final int SCHEMA_ID = 0x00_01_02_FF;

    private static KafkaFixture kafka;
    private static RabbitMqFixture rabbit;

    private PostgresOutboxStore store;

    @BeforeAll
    static void startBrokers() {
        kafka = KafkaFixture.start();
        rabbit = RabbitMqFixture.start();
    }

    @AfterAll
    static void stopBrokers() {
        if (kafka != null) {
            kafka.close();
        }
        if (rabbit != null) {
            rabbit.close();
        }
    }

    @BeforeEach
    void createOutbox() {
        store = PostgresOutboxStore.create(
                postgres.dataSource(),
                PostgresOutboxConfig.builder()
                        .tableName(postgres.schema() + ".outbox_registry_"
                                + UUID.randomUUID().toString().substring(0, 8))
                        .build());
        store.ensureSchema();
    }

    @AfterEach
    void dropOutbox() {
        postgres.fixture().execute("DROP TABLE IF EXISTS " + store.config().tableName() + " CASCADE");
    }

    @Test
    @DisplayName("through Kafka: the record's value is the appended payload, content-type application/avro")
    void kafka() {
        String topic = kafka.createTopic("registry-payload", 1);
        try {
            OrderPlaced order = order();
            OutboxEvent appended = append(RegistryFramedAvro.placed(topic, order, everyByteValue(), SCHEMA_ID));
            try (KafkaPublisher publisher = KafkaPublisher.create(KafkaPublisherConfig.builder()
                    .bootstrapServers(kafka.bootstrapServers())
                    .build())) {
                relay(publisher);
            }

            List<ConsumerRecord<String, byte[]>> received = kafka.consume(topic, 1, Duration.ofSeconds(30));

            assertThat(received).hasSize(1);
            ConsumerRecord<String, byte[]> record = received.get(0);
            assertThat(record.value()).as("the payload, byte for byte").isEqualTo(appended.payload());
            Header contentType = record.headers().lastHeader("content-type");
            assertThat(new String(contentType.value(), StandardCharsets.UTF_8))
                    .isEqualTo(RegistryFramedAvro.CONTENT_TYPE);
            assertDecodesTo(record.value(), order);
        } finally {
            kafka.deleteTopic(topic);
        }
    }

    @Test
    @DisplayName("through RabbitMQ: the message body is the appended payload, content_type application/avro")
    void rabbitMq() {
        RabbitMqDestination destination = rabbit.createDestination("registry-payload");
        try {
            OrderPlaced order = order();
            OutboxEvent appended =
                    append(RegistryFramedAvro.placed(destination.exchange(), order, everyByteValue(), SCHEMA_ID));
            try (RabbitMqPublisher publisher = new RabbitMqPublisher(RabbitMqPublisherConfig.builder()
                    .uri(rabbit.uri())
                    .connectionName("outbox-registry-payload-" + UUID.randomUUID())
                    .build())) {
                relay(publisher);
            }

            List<Delivery> received = rabbit.receive(destination, 1, Duration.ofSeconds(30));

            assertThat(received).hasSize(1);
            Delivery delivery = received.get(0);
            assertThat(delivery.getBody()).as("the payload, byte for byte").isEqualTo(appended.payload());
            assertThat(delivery.getProperties().getContentType()).isEqualTo(RegistryFramedAvro.CONTENT_TYPE);
            assertDecodesTo(delivery.getBody(), order);
        } finally {
            rabbit.delete(destination);
        }
    }

    private OutboxEvent append(OutboxEvent event) {
        OutboxEvent appended = store.transactional()
                .inTransaction(connection -> List.of(event))
                .get(0);
        // the framing a registry-aware deserializer expects, before the outbox touched it
        assertThat(appended.payload()[0]).isEqualTo(RegistryFramedAvro.MAGIC_BYTE);
        assertThat(RegistryFramedAvro.schemaId(appended.payload())).isEqualTo(SCHEMA_ID);
        return appended;
    }

    private void relay(Publisher publisher) {
        new Relay(
                        store,
                        publisher,
                        new RelayConfig(100, Duration.ofSeconds(30)),
                        RetryPolicy.ofDefaults(),
                        Clock.systemUTC(),
                        RelayListener.NONE)
                .runOnce();
    }

    private static void assertDecodesTo(byte[] payload, OrderPlaced order) {
        assertThat(RegistryFramedAvro.schemaId(payload)).isEqualTo(SCHEMA_ID);
        GenericRecord record = RegistryFramedAvro.read(payload, RegistryFramedAvro.ORDER_PLACED);
        assertThat(record.get("orderId").toString()).isEqualTo(order.orderId().toString());
        assertThat(record.get("customerId").toString()).isEqualTo(order.customerId());
        assertThat(record.get("sku").toString()).isEqualTo(order.sku());
        assertThat(record.get("quantity")).isEqualTo(order.quantity());
        assertThat(record.get("totalCents")).isEqualTo(order.totalCents());
        assertThat(record.get("placedAt")).isEqualTo(order.placedAt().toEpochMilli());
        ByteBuffer note = (ByteBuffer) record.get("note");
        byte[] noteBytes = new byte[note.remaining()];
        note.get(noteBytes);
        assertThat(noteBytes).isEqualTo(everyByteValue());
    }

    /** Text beyond ASCII and a negative amount, so the encoding has multi-byte characters and high bytes. */
    private static OrderPlaced order() {
        return new OrderPlaced(
                UUID.randomUUID(),
                "kundin-Jürgen-東京",
                "sku-ß-42",
                3,
                -123_456_789_012L,
                Instant.parse("2026-11-25T12:34:56.789Z"));
    }

    /** All 256 byte values, zeros and 0xFF among them: a text conversion anywhere would show. */
    private static byte[] everyByteValue() {
        byte[] bytes = new byte[256];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) i;
        }
        return bytes;
    }
}
