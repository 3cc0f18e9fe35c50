package dev.outboxjava.examples.consuming;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.rabbitmq.RabbitMqPublisher;
import dev.outboxjava.rabbitmq.RabbitMqPublisherConfig;
import dev.outboxjava.rabbitmq.inbox.RabbitMqInbox.DeliveryOutcome;
import dev.outboxjava.testkit.postgres.PostgresExtension;
import dev.outboxjava.testkit.rabbitmq.RabbitMqDestination;
import dev.outboxjava.testkit.rabbitmq.RabbitMqFixture;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The RabbitMQ recipe against real services: the shared RabbitMQ (a queue and exchange of this
 * test's own) and the shared PostgreSQL. Every redelivery — by the broker after a consumer died
 * before its acknowledgement, or from the relay publishing twice — credits an order once.
 */
@DisplayName("Recipe: RabbitMQ manual acknowledgement after the inbox commit")
class RabbitMqLoyaltyConsumerIT {

    @RegisterExtension
    static final PostgresExtension postgres = new PostgresExtension();

    private static RabbitMqFixture rabbit;

    private LoyaltyTables tables;
    private RabbitMqDestination destination;

    @BeforeAll
    static void connect() {
        rabbit = RabbitMqFixture.start();
    }

    @AfterAll
    static void disconnect() {
        if (rabbit != null) {
            rabbit.close();
        }
    }

    @BeforeEach
    void createTablesAndQueue() throws Exception {
        tables = new LoyaltyTables(postgres);
        destination = rabbit.createDestination("loyalty-recipe");
    }

    @AfterEach
    void dropTablesAndQueue() {
        tables.drop();
        rabbit.delete(destination);
    }

    @Test
    @DisplayName("a consumer that dies after its inbox commits and before its acknowledgements reach the broker: "
            + "the broker delivers every message again and none is credited twice")
    void consumerDiesBeforeItsAcknowledgement() throws Exception {
        List<OutboxEvent> orders = tables.placeOrders(destination.exchange(), 9);
        relay();

        RabbitMqLoyaltyConsumer dying = new RabbitMqLoyaltyConsumer(tables.inbox, tables.points);
        try (Connection connection = connection("dying")) {
            dying.start(acknowledgementsLost(connection.createChannel()), destination.queue(), 20);
            await().atMost(Duration.ofSeconds(30)).until(() -> dying.count(DeliveryOutcome.PROCESSED) == orders.size());
        } // the connection closes: the broker requeues every unacknowledged message
        assertThat(tables.processed(orders, RabbitMqLoyaltyConsumer.CONSUMER_NAME))
                .isEqualTo(orders.size());

        RabbitMqLoyaltyConsumer next = new RabbitMqLoyaltyConsumer(tables.inbox, tables.points);
        try (Connection connection = connection("next")) {
            next.start(connection.createChannel(), destination.queue(), 20);
            await().atMost(Duration.ofSeconds(30)).until(() -> next.handled() == orders.size());
            try (Channel check = connection.createChannel()) {
                await().atMost(Duration.ofSeconds(10))
                        .until(() ->
                                check.queueDeclarePassive(destination.queue()).getMessageCount() == 0);
            }
        }
        assertThat(next.count(DeliveryOutcome.DUPLICATE))
                .as("redeliveries acknowledged without a credit")
                .isEqualTo(orders.size());
        assertThat(next.count(DeliveryOutcome.PROCESSED)).isZero();
        tables.assertEachOrderCreditedOnce(orders);
        try (Connection connection = connection("after");
                Channel channel = connection.createChannel()) {
            assertThat(channel.queueDeclarePassive(destination.queue()).getMessageCount())
                    .as("messages left in the queue once the acknowledging consumer is gone")
                    .isZero();
        }
    }

    @Test
    @DisplayName("an event the relay published twice is credited once, and both messages are acknowledged")
    void eventPublishedTwice() throws Exception {
        List<OutboxEvent> orders = tables.placeOrders(destination.exchange(), 6);
        try (RabbitMqPublisher publisher = publisher()) {
            tables.relay(publisher);
            // a relay that died between the broker's confirm and its mark publishes them again
            publisher.publish(orders, Duration.ofSeconds(30)).get();
        }

        RabbitMqLoyaltyConsumer consumer = new RabbitMqLoyaltyConsumer(tables.inbox, tables.points);
        try (Connection connection = connection("consumer")) {
            consumer.start(connection.createChannel(), destination.queue(), 20);
            await().atMost(Duration.ofSeconds(30)).until(() -> consumer.handled() == 2 * orders.size());
        }

        assertThat(consumer.count(DeliveryOutcome.PROCESSED)).isEqualTo(orders.size());
        assertThat(consumer.count(DeliveryOutcome.DUPLICATE)).isEqualTo(orders.size());
        tables.assertEachOrderCreditedOnce(orders);
        try (Connection connection = connection("after");
                Channel channel = connection.createChannel()) {
            assertThat(channel.queueDeclarePassive(destination.queue()).getMessageCount())
                    .isZero();
        }
    }

    @Test
    @DisplayName("a credit that fails rolls its inbox record back with it: the message is requeued and credited once")
    void creditFails() throws Exception {
        List<OutboxEvent> orders = tables.placeOrders(destination.exchange(), 6);
        relay();
        tables.failTheFirstCredit();

        RabbitMqLoyaltyConsumer consumer = new RabbitMqLoyaltyConsumer(tables.inbox, tables.points);
        try (Connection connection = connection("consumer")) {
            consumer.start(connection.createChannel(), destination.queue(), 20);
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> consumer.count(DeliveryOutcome.PROCESSED) == orders.size());
        }

        assertThat(consumer.count(DeliveryOutcome.REQUEUED))
                .as("the delivery whose credit failed")
                .isEqualTo(1);
        assertThat(consumer.count(DeliveryOutcome.DUPLICATE))
                .as("the failed delivery left no inbox record")
                .isZero();
        tables.assertEachOrderCreditedOnce(orders);
    }

    private void relay() {
        try (RabbitMqPublisher publisher = publisher()) {
            tables.relay(publisher);
        }
    }

    private static RabbitMqPublisher publisher() {
        return new RabbitMqPublisher(RabbitMqPublisherConfig.builder()
                .uri(rabbit.uri())
                .connectionName("outbox-loyalty-recipe-relay-" + UUID.randomUUID())
                .build());
    }

    private static Connection connection(String role) throws Exception {
        return rabbit.connectionFactory().newConnection("outbox-loyalty-recipe-" + role + "-" + UUID.randomUUID());
    }

    /**
     * The process dying between the inbox commit and the acknowledgement: every {@code basicAck} is
     * lost on the way, the rest of the channel works.
     */
    private static Channel acknowledgementsLost(Channel channel) {
        return (Channel) Proxy.newProxyInstance(
                Channel.class.getClassLoader(), new Class<?>[] {Channel.class}, (proxy, method, args) -> {
                    if (method.getName().equals("basicAck")) {
                        return null;
                    }
                    try {
                        return method.invoke(channel, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
