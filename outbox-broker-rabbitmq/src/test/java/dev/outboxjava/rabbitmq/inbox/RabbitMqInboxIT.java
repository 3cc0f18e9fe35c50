package dev.outboxjava.rabbitmq.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.DeliverCallback;
import com.rabbitmq.client.GetResponse;
import dev.outboxjava.core.inbox.InMemoryInbox;
import dev.outboxjava.core.inbox.InboxKey;
import dev.outboxjava.core.inbox.InboxResult;
import dev.outboxjava.core.time.ManualClock;
import dev.outboxjava.rabbitmq.inbox.RabbitMqInbox.DeliveryOutcome;
import dev.outboxjava.testkit.rabbitmq.RabbitMqDestination;
import dev.outboxjava.testkit.rabbitmq.RabbitMqFixture;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The acknowledging helper against a real AMQP broker, deduplicating through an in-memory inbox. */
@DisplayName("RabbitMQ inbox: acknowledge after commit")
class RabbitMqInboxIT {

    private static RabbitMqFixture rabbit;

    private final InMemoryInbox<InboxKey> memory = InMemoryInbox.create(ManualClock.startingAtEpochOf2024());
    private final RabbitMqInbox<InboxKey> inbox = RabbitMqInbox.of(memory, "shipping");
    private final Map<String, AtomicInteger> effects = new ConcurrentHashMap<>();
    private final List<DeliveryOutcome> outcomes = new CopyOnWriteArrayList<>();
    private RabbitMqDestination destination;
    private Connection connection;

    @BeforeAll
    static void startBroker() {
        rabbit = RabbitMqFixture.start();
    }

    @AfterAll
    static void stopBroker() {
        if (rabbit != null) {
            rabbit.close();
        }
    }

    @BeforeEach
    void connect() throws Exception {
        destination = rabbit.createDestination("inbox-it");
        connection = rabbit.connectionFactory().newConnection("outbox-inbox-it-" + UUID.randomUUID());
    }

    @AfterEach
    void disconnect() throws Exception {
        connection.close();
        rabbit.delete(destination);
    }

    private void publish(String messageId, String body) throws Exception {
        try (Channel channel = connection.createChannel()) {
            channel.confirmSelect();
            AMQP.BasicProperties properties =
                    new AMQP.BasicProperties.Builder().messageId(messageId).build();
            channel.basicPublish(
                    destination.exchange(), "order.placed", properties, body.getBytes(StandardCharsets.UTF_8));
            channel.waitForConfirmsOrDie(10_000);
        }
    }

    private void effect(byte[] body) {
        effects.computeIfAbsent(new String(body, StandardCharsets.UTF_8), id -> new AtomicInteger())
                .incrementAndGet();
    }

    /** Messages still in the queue, ready or unacknowledged (an unacknowledged one returns when its channel closes). */
    private int remaining() throws Exception {
        try (Channel channel = connection.createChannel()) {
            return channel.queueDeclarePassive(destination.queue()).getMessageCount();
        }
    }

    @Test
    @DisplayName("every message arriving three times has its effect once, and every copy is acknowledged")
    void duplicatesAreAcknowledgedWithoutEffect() throws Exception {
        for (int copy = 0; copy < 3; copy++) {
            for (int i = 0; i < 5; i++) {
                publish("id-" + i, "id-" + i);
            }
        }
        AtomicInteger handled = new AtomicInteger();
        try (Channel channel = connection.createChannel()) {
            channel.basicQos(10);
            DeliverCallback callback = inbox.deliverCallback(channel, (key, delivery) -> effect(delivery.getBody()));
            channel.basicConsume(
                    destination.queue(),
                    false,
                    (tag, delivery) -> {
                        callback.handle(tag, delivery);
                        handled.incrementAndGet();
                    },
                    tag -> {});
            await().atMost(Duration.ofSeconds(30)).until(() -> handled.get() == 15);
        }
        assertThat(remaining()).isZero(); // nothing left unacknowledged: closing the channel would have requeued it
        assertThat(effects)
                .hasSize(5)
                .allSatisfy((id, count) -> assertThat(count).hasValue(1));
    }

    @Test
    @DisplayName("a failed work is rolled back and requeued, then processed once on redelivery")
    void failureRequeues() throws Exception {
        publish("id-1", "id-1");
        AtomicBoolean failedOnce = new AtomicBoolean();
        try (Channel channel = connection.createChannel()) {
            channel.basicConsume(
                    destination.queue(),
                    false,
                    (tag, delivery) -> outcomes.add(inbox.handle(channel, delivery, (key, d) -> {
                        if (failedOnce.compareAndSet(false, true)) {
                            throw new IllegalStateException("database said no");
                        }
                        effect(d.getBody());
                    })),
                    tag -> {});
            await().atMost(Duration.ofSeconds(30)).until(() -> outcomes.size() == 2);
        }
        assertThat(outcomes).containsExactly(DeliveryOutcome.REQUEUED, DeliveryOutcome.PROCESSED);
        assertThat(effects.get("id-1")).hasValue(1);
        assertThat(remaining()).isZero();
    }

    @Test
    @DisplayName("a message processed but not acknowledged (a crash before basicAck) comes back and is skipped")
    void crashBeforeAck() throws Exception {
        publish("id-1", "id-1");
        try (Channel crashing = connection.createChannel()) {
            GetResponse response = await().atMost(Duration.ofSeconds(30))
                    .until(() -> crashing.basicGet(destination.queue(), false), got -> got != null);
            assertThat(inbox.process(response.getProps(), key -> effect(response.getBody())))
                    .isEqualTo(InboxResult.PROCESSED);
            // the channel closes without basicAck: the "crash"
        }
        try (Channel channel = connection.createChannel()) {
            channel.basicConsume(
                    destination.queue(),
                    false,
                    (tag, delivery) -> outcomes.add(inbox.handle(channel, delivery, (key, d) -> effect(d.getBody()))),
                    tag -> {});
            await().atMost(Duration.ofSeconds(30)).until(() -> outcomes.size() == 1);
        }
        assertThat(outcomes).containsExactly(DeliveryOutcome.DUPLICATE);
        assertThat(effects.get("id-1")).hasValue(1);
        assertThat(remaining()).isZero();
    }

    @Test
    @DisplayName("a message without any id is rejected without requeue and has no effect")
    void missingIdIsRejected() throws Exception {
        publish(null, "anonymous");
        try (Channel channel = connection.createChannel()) {
            channel.basicConsume(
                    destination.queue(),
                    false,
                    (tag, delivery) -> outcomes.add(inbox.handle(channel, delivery, (key, d) -> effect(d.getBody()))),
                    tag -> {});
            await().atMost(Duration.ofSeconds(30)).until(() -> outcomes.size() == 1);
        }
        assertThat(outcomes).containsExactly(DeliveryOutcome.REJECTED);
        assertThat(effects).isEmpty();
        assertThat(remaining()).isZero();
    }
}
