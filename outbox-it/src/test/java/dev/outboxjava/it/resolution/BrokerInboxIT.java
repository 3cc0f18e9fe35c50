package dev.outboxjava.it.resolution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import dev.outboxjava.testkit.EventFilter;
import dev.outboxjava.testkit.OutboxAssertions;
import dev.outboxjava.testkit.fixture.BrokerInbox;
import dev.outboxjava.testkit.kafka.KafkaFixture;
import dev.outboxjava.testkit.rabbitmq.RabbitMqDestination;
import dev.outboxjava.testkit.rabbitmq.RabbitMqFixture;
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

/** The background consumers behind the broker-side assertions, against the fixtures' real brokers. */
@DisplayName("BrokerInbox")
class BrokerInboxIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static RabbitMqFixture rabbit;
    private static KafkaFixture kafka;

    @BeforeAll
    static void start() {
        rabbit = RabbitMqFixture.start();
        kafka = KafkaFixture.start();
    }

    @AfterAll
    static void stop() {
        if (rabbit != null) {
            rabbit.close();
        }
        if (kafka != null) {
            kafka.close();
        }
    }

    @Test
    @DisplayName("an AMQP inbox collects what arrives while the test acts; the assertions wait on it")
    void amqp() throws Exception {
        RabbitMqDestination orders = rabbit.createDestination("inbox");
        try (BrokerInbox inbox = BrokerInbox.amqp(rabbit.connectionFactory(), orders.queue())) {
            String id = UUID.randomUUID().toString();
            try (Connection connection = rabbit.connectionFactory().newConnection("outbox-testkit-inbox-it-" + id);
                    Channel channel = connection.createChannel()) {
                channel.confirmSelect();
                for (String key : new String[] {"order-6", "order-7"}) {
                    channel.basicPublish(
                            orders.exchange(),
                            "orders",
                            true,
                            new AMQP.BasicProperties.Builder()
                                    .messageId(key + "-" + id)
                                    .headers(
                                            Map.of("cloudEvents:type", "order.placed", "cloudEvents:partitionkey", key))
                                    .build(),
                            "{}".getBytes(StandardCharsets.UTF_8));
                }
                channel.waitForConfirmsOrDie(TIMEOUT.toMillis());
            }

            assertThat(OutboxAssertions.awaitReceived(
                                    inbox, EventFilter.ofType("order.placed").withKey("order-7"), TIMEOUT)
                            .id())
                    .isEqualTo("order-7-" + id);
            assertThatThrownBy(() ->
                            OutboxAssertions.assertNothingReceived(inbox, EventFilter.ofKey("order-6"), Duration.ZERO))
                    .hasMessageContaining("Received: 2 events:");
            assertThat(inbox.ids()).containsExactlyInAnyOrder("order-6-" + id, "order-7-" + id);
        }
    }

    @Test
    @DisplayName("a Kafka inbox reads the topic from the beginning, in the background")
    void kafka() throws Exception {
        String topic = kafka.createTopic("inbox", 2);
        try (BrokerInbox inbox = BrokerInbox.kafka(kafka.consumerProperties(), topic)) {
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
                        .add("ce_id", "k-1".getBytes(StandardCharsets.UTF_8))
                        .add("ce_type", "order.placed".getBytes(StandardCharsets.UTF_8));
                producer.send(record).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            }

            assertThat(OutboxAssertions.awaitReceived(
                                    inbox, EventFilter.ofType("order.placed").withKey("order-7"), TIMEOUT)
                            .id())
                    .isEqualTo("k-1");
        }
    }

    @Test
    @DisplayName("an inbox on a queue that does not exist fails naming the queue")
    void missingQueue() {
        assertThatThrownBy(() -> BrokerInbox.amqp(rabbit.connectionFactory(), "no-such-queue-" + UUID.randomUUID()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no-such-queue-");
    }
}
