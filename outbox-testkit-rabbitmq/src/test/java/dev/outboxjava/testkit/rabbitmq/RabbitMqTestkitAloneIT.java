package dev.outboxjava.testkit.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import dev.outboxjava.testkit.EventFilter;
import dev.outboxjava.testkit.OutboxAssertions;
import dev.outboxjava.testkit.fixture.BrokerInbox;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A test that adds outbox-testkit-rabbitmq alone: this module's test class path is what such a test
 * gets, so the fixture and the AMQP inbox must work without Kafka, PostgreSQL or zonky on it.
 */
@DisplayName("outbox-testkit-rabbitmq on its own")
class RabbitMqTestkitAloneIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static RabbitMqFixture rabbit;

    @BeforeAll
    static void start() {
        rabbit = RabbitMqFixture.start();
    }

    @AfterAll
    static void stop() {
        if (rabbit != null) {
            rabbit.close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "org.apache.kafka.clients.consumer.KafkaConsumer",
                "scala.Option",
                "org.postgresql.Driver",
                "io.zonky.test.db.postgres.embedded.EmbeddedPostgres"
            })
    @DisplayName("brings no other broker or database")
    void bringsNoOtherEngine(String className) {
        assertThatThrownBy(() -> Class.forName(className)).isInstanceOf(ClassNotFoundException.class);
    }

    @Test
    @DisplayName("an AMQP inbox collects what arrives, without the Kafka client on the class path")
    void amqpInbox() throws Exception {
        RabbitMqDestination orders = rabbit.createDestination("alone");
        try (BrokerInbox inbox = BrokerInbox.amqp(rabbit.connectionFactory(), orders.queue())) {
            String id = UUID.randomUUID().toString();
            try (Connection connection = rabbit.connectionFactory().newConnection("outbox-testkit-alone-it-" + id);
                    Channel channel = connection.createChannel()) {
                channel.confirmSelect();
                channel.basicPublish(
                        orders.exchange(),
                        "orders",
                        true,
                        new AMQP.BasicProperties.Builder()
                                .messageId(id)
                                .headers(Map.of(
                                        "cloudEvents:type", "order.placed", "cloudEvents:partitionkey", "order-7"))
                                .build(),
                        "{}".getBytes(StandardCharsets.UTF_8));
                channel.waitForConfirmsOrDie(TIMEOUT.toMillis());
            }

            assertThat(OutboxAssertions.awaitReceived(
                                    inbox, EventFilter.ofType("order.placed").withKey("order-7"), TIMEOUT)
                            .id())
                    .isEqualTo(id);
        }
    }
}
