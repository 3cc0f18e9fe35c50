package dev.outboxjava.it.resolution;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import dev.outboxjava.testkit.EventFilter;
import dev.outboxjava.testkit.OutboxAssertions;
import dev.outboxjava.testkit.contract.ReceivedMessage;
import dev.outboxjava.testkit.fixture.BrokerMessages;
import dev.outboxjava.testkit.kafka.KafkaFixture;
import dev.outboxjava.testkit.postgres.PostgresFixture;
import dev.outboxjava.testkit.rabbitmq.RabbitMqDestination;
import dev.outboxjava.testkit.rabbitmq.RabbitMqFixture;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Proves a fixture's service really works: a table in the test's own schema, and a CloudEvent
 * published (with confirms / acks=all) and read back through the broker-side assertions.
 */
final class RoundTrips {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private RoundTrips() {}

    /** Writes and reads a row in a fresh schema; returns {@code current_database()}. */
    static String postgres(PostgresFixture postgres) throws SQLException {
        String schema = postgres.newSchema();
        try (Connection connection = postgres.dataSource().getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE " + schema + ".probe (id int PRIMARY KEY)");
            statement.execute("INSERT INTO " + schema + ".probe VALUES (7)");
            try (ResultSet rows = statement.executeQuery("SELECT id, current_database() FROM " + schema + ".probe")) {
                assertThat(rows.next()).isTrue();
                assertThat(rows.getInt(1)).isEqualTo(7);
                return rows.getString(2);
            }
        } finally {
            postgres.dropSchema(schema);
        }
    }

    /** Publishes one CloudEvent with publisher confirms and awaits it at the destination's queue. */
    static void amqp(RabbitMqFixture rabbit) throws Exception {
        RabbitMqDestination destination = rabbit.createDestination("resolution");
        String id = UUID.randomUUID().toString();
        try (com.rabbitmq.client.Connection connection =
                        rabbit.connectionFactory().newConnection("outbox-testkit-resolution-" + id);
                Channel channel = connection.createChannel()) {
            channel.confirmSelect();
            AMQP.BasicProperties properties = new AMQP.BasicProperties.Builder()
                    .messageId(id)
                    .contentType("application/json")
                    .deliveryMode(2)
                    .headers(Map.of(
                            "cloudEvents:type",
                            "order.placed",
                            "cloudEvents:source",
                            "/orders",
                            "cloudEvents:partitionkey",
                            "order-7",
                            "tenant",
                            "acme"))
                    .build();
            channel.basicPublish(
                    destination.exchange(),
                    "orders.placed",
                    true,
                    properties,
                    "{\"total\":12.5}".getBytes(StandardCharsets.UTF_8));
            channel.waitForConfirmsOrDie(TIMEOUT.toMillis());
        }
        List<ReceivedMessage> arrived = rabbit.receive(destination, 1, TIMEOUT).stream()
                .map(BrokerMessages::fromAmqp)
                .toList();
        ReceivedMessage message = OutboxAssertions.awaitReceived(
                () -> arrived,
                EventFilter.ofType("order.placed").withKey("order-7").withHeader("tenant", "acme"),
                TIMEOUT);
        assertThat(message.id()).isEqualTo(id);
        rabbit.delete(destination);
    }

    /** Produces one CloudEvent with acks=all and awaits it on a fresh topic. */
    static void kafka(KafkaFixture kafka) throws Exception {
        String topic = kafka.createTopic("resolution", 1);
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
            ProducerRecord<String, byte[]> record =
                    new ProducerRecord<>(topic, "order-7", "{\"total\":12.5}".getBytes(StandardCharsets.UTF_8));
            record.headers()
                    .add("ce_id", bytes(id))
                    .add("ce_type", bytes("order.placed"))
                    .add("ce_source", bytes("/orders"))
                    .add("ce_specversion", bytes("1.0"))
                    .add("content-type", bytes("application/json"));
            producer.send(record).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        }
        List<ReceivedMessage> arrived = kafka.consume(topic, 1, TIMEOUT).stream()
                .map(BrokerMessages::fromKafka)
                .toList();
        ReceivedMessage message = OutboxAssertions.awaitReceived(
                () -> arrived, EventFilter.ofType("order.placed").withKey("order-7"), TIMEOUT);
        assertThat(message.id()).isEqualTo(id);
        kafka.deleteTopic(topic);
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
