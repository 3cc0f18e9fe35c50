package dev.outboxjava.worker.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.inject.Guice;
import com.google.inject.Module;
import com.rabbitmq.client.Delivery;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.kafka.KafkaPublisherConfig;
import dev.outboxjava.postgres.WakeUpMode;
import dev.outboxjava.rabbitmq.RabbitMqPublisherConfig;
import dev.outboxjava.testkit.kafka.KafkaFixture;
import dev.outboxjava.testkit.postgres.PostgresFixture;
import dev.outboxjava.testkit.rabbitmq.RabbitMqDestination;
import dev.outboxjava.testkit.rabbitmq.RabbitMqFixture;
import dev.outboxjava.worker.KafkaPublisherModule;
import dev.outboxjava.worker.OutboxWorker;
import dev.outboxjava.worker.OutboxWorkerConfig;
import dev.outboxjava.worker.OutboxWorkerModule;
import dev.outboxjava.worker.PostgresStoreModule;
import dev.outboxjava.worker.RabbitMqPublisherModule;
import dev.outboxjava.worker.testsupport.OutboxTable;
import io.cloudevents.CloudEvent;
import io.cloudevents.kafka.CloudEventDeserializer;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The CloudEvents {@code subject} and {@code dataschema} travel the whole way: builder, PostgreSQL
 * columns, the worker's relay, the broker, and a consumer that knows only the CloudEvents SDK (Kafka,
 * binary mode) or plain amqp-client (RabbitMQ).
 */
@DisplayName("CloudEvents subject and dataschema, from the outbox table to the consumer")
class CloudEventsAttributesIT {

    private static final String SCHEMA = "https://example.com/schemas/order-placed-v1.json";

    private final PostgresFixture postgres = PostgresFixture.shared();
    private OutboxTable table;

    @BeforeEach
    void fresh() {
        table = new OutboxTable(postgres);
    }

    @AfterEach
    void cleanUp() {
        table.close();
    }

    private List<OutboxEvent> appendTwo(String destination) {
        OutboxEvent with = OutboxEvent.builder()
                .type("order.placed")
                .source("/orders-service")
                .key("order-42")
                .destination(destination)
                .routingKey("orders.placed")
                .subject("order-42")
                .dataSchema(SCHEMA)
                .payload("{\"order\":42}".getBytes(StandardCharsets.UTF_8))
                .build();
        OutboxEvent without = OutboxEvent.builder()
                .type("order.placed")
                .source("/orders-service")
                .key("order-42")
                .destination(destination)
                .routingKey("orders.placed")
                .payload("{\"order\":43}".getBytes(StandardCharsets.UTF_8))
                .build();
        return table.store.transactional().inTransaction(connection -> List.of(with, without));
    }

    private OutboxWorker worker(Module publisher) {
        DataSource database = PlainDataSources.simple(postgres.jdbcUrl(), postgres.user(), postgres.password());
        return Guice.createInjector(
                        new OutboxWorkerModule(OutboxWorkerConfig.builder()
                                .pollInterval(Duration.ofMillis(200))
                                .build()),
                        new PostgresStoreModule(database, PlainDataSources.keepSent(table.name, WakeUpMode.NONE)),
                        publisher)
                .getInstance(OutboxWorker.class);
    }

    @Test
    @DisplayName(
            "Kafka: a CloudEvents SDK consumer reads subject and dataschema of the first event, neither of the second")
    void kafka() {
        try (KafkaFixture kafka = KafkaFixture.start()) {
            String topic = kafka.createTopic("cloudevents-attributes", 1);
            List<OutboxEvent> events = appendTwo(topic);
            List<CloudEvent> received;
            try (OutboxWorker worker = worker(new KafkaPublisherModule(KafkaPublisherConfig.builder()
                    .bootstrapServers(kafka.bootstrapServers())
                    .build()))) {
                worker.start();
                received = readCloudEvents(kafka, topic, 2);
            }

            assertThat(received)
                    .extracting(CloudEvent::getId)
                    .containsExactly(
                            events.get(0).id().toString(), events.get(1).id().toString());
            assertThat(received.get(0).getSubject()).isEqualTo("order-42");
            assertThat(received.get(0).getDataSchema()).isEqualTo(URI.create(SCHEMA));
            assertThat(received.get(1).getSubject()).isNull();
            assertThat(received.get(1).getDataSchema()).isNull();
        }
    }

    @Test
    @DisplayName("RabbitMQ: a plain amqp-client consumer reads cloudEvents:subject and cloudEvents:dataschema of the "
            + "first event, neither of the second")
    void rabbitMq() {
        RabbitMqFixture rabbit = RabbitMqFixture.start();
        RabbitMqDestination destination = rabbit.createDestination("cloudevents-attributes");
        try {
            List<OutboxEvent> events = appendTwo(destination.exchange());
            List<Delivery> received;
            try (OutboxWorker worker = worker(new RabbitMqPublisherModule(RabbitMqPublisherConfig.builder()
                    .uri(rabbit.uri())
                    .connectionName("outbox-ce-attributes-" + UUID.randomUUID())
                    .build()))) {
                worker.start();
                received = rabbit.receive(destination, 2, Duration.ofSeconds(60));
            }

            assertThat(received)
                    .extracting(d -> d.getProperties().getMessageId())
                    .containsExactly(
                            events.get(0).id().toString(), events.get(1).id().toString());
            Map<String, Object> first = received.get(0).getProperties().getHeaders();
            assertThat(String.valueOf(first.get("cloudEvents:subject"))).isEqualTo("order-42");
            assertThat(String.valueOf(first.get("cloudEvents:dataschema"))).isEqualTo(SCHEMA);
            assertThat(received.get(1).getProperties().getHeaders())
                    .doesNotContainKeys("cloudEvents:subject", "cloudEvents:dataschema");
        } finally {
            rabbit.delete(destination);
            rabbit.close();
        }
    }

    private static List<CloudEvent> readCloudEvents(KafkaFixture kafka, String topic, int expected) {
        Map<String, Object> props = new HashMap<>(kafka.consumerProperties());
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, CloudEventDeserializer.class);
        List<CloudEvent> received = new ArrayList<>();
        try (KafkaConsumer<String, CloudEvent> consumer = new KafkaConsumer<>(props)) {
            TopicPartition partition = new TopicPartition(topic, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (received.size() < expected && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(500)).forEach(record -> received.add(record.value()));
            }
        }
        return received;
    }
}
