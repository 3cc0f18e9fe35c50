package dev.outboxjava.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.OutboxException;
import dev.outboxjava.spring.boot.app.OrderService;
import dev.outboxjava.spring.boot.app.ShopApplication;
import dev.outboxjava.testkit.kafka.EmbeddedKafkaBroker;
import dev.outboxjava.testkit.kafka.KafkaFixture;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A Spring Boot service on the starter, end to end: JPA, JdbcTemplate and the outbox in one
 * transaction; the relay publishes to Kafka with the application's spring.kafka.* settings.
 */
@SpringBootTest(classes = ShopApplication.class)
@DisplayName("A Spring Boot service relaying to Kafka")
class SpringBootKafkaIT {

    static final ShopDatabase database = new ShopDatabase();
    static final KafkaFixture kafka = KafkaFixture.start();
    static final String topic = kafka.createTopic("shop-orders", 1);

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        database.properties().forEach((key, value) -> registry.add(key, () -> value));
        registry.add("spring.kafka.bootstrap-servers", kafka::bootstrapServers);
        registry.add("outbox.broker", () -> "kafka");
        registry.add("shop.topic", () -> topic);
        registry.add("outbox.health.max-broker-outage", () -> "0s");
        registry.add("outbox.relay.poll-interval", () -> "1h");
    }

    @AfterAll
    static void stopServices() {
        kafka.close();
        database.drop();
    }

    @Autowired
    OrderService orders;

    @Autowired
    OutboxEndpoint endpoint;

    @Autowired
    dev.outboxjava.spring.boot.app.JooqOrderLines jooqLines;

    @Autowired
    OutboxHealthIndicator health;

    private List<ConsumerRecord<String, byte[]>> published(UUID orderId) {
        return kafka.consume(topic, Integer.MAX_VALUE, Duration.ofSeconds(3)).stream()
                .filter(record -> orderId.toString().equals(record.key()))
                .toList();
    }

    @Test
    @DisplayName("commit: the order, its line and its event land together, and the event is published once at once")
    void commit() {
        UUID orderId = UUID.randomUUID();
        OutboxEvent event = orders.placeOrder(orderId);

        assertThat(database.orders(orderId)).isEqualTo(2);
        // the relay polls once an hour here: only the after-commit wake-up can have sent it this soon
        await().atMost(Duration.ofSeconds(20))
                .until(() -> database.count(
                                "SELECT count(*) FROM " + database.table + " WHERE id = ? AND status = 'sent'",
                                event.id())
                        == 1);
        assertThat(published(orderId))
                .singleElement()
                .satisfies(record -> assertThat(
                                new String(record.headers().lastHeader("ce_id").value()))
                        .isEqualTo(event.id().toString()));
    }

    @Test
    @DisplayName("an exception after the append: order, line and event roll back, nothing is published")
    void rollback() {
        UUID orderId = UUID.randomUUID();
        assertThatThrownBy(() -> orders.placeOrderThenFail(orderId)).hasMessageContaining("payment declined");

        assertThat(database.orders(orderId)).isZero();
        assertThat(database.eventsOfOrder(orderId))
                .as("an event that never committed cannot be published")
                .isZero();
        UUID later = UUID.randomUUID();
        orders.placeOrder(later);
        await().atMost(Duration.ofSeconds(20)).until(() -> !published(later).isEmpty());
        assertThat(published(orderId)).isEmpty();
    }

    @Test
    @DisplayName("jOOQ, JPA, JdbcTemplate and the outbox share one transaction: all commit, or all roll back")
    void jooqInTheSameTransaction() {
        UUID committed = UUID.randomUUID();
        jooqLines.addLineWithJooq(committed, false);
        assertThat(database.orders(committed))
                .as("order, JdbcTemplate line, jOOQ line")
                .isEqualTo(3);
        assertThat(database.eventsOfOrder(committed)).isEqualTo(2);

        UUID declined = UUID.randomUUID();
        assertThatThrownBy(() -> jooqLines.addLineWithJooq(declined, true)).hasMessageContaining("declined");
        assertThat(database.orders(declined)).isZero();
        assertThat(database.eventsOfOrder(declined)).isZero();
    }

    @Test
    @DisplayName("no transaction: the append refuses with a clear error and writes nothing")
    void noTransaction() {
        UUID orderId = UUID.randomUUID();
        assertThatThrownBy(() -> orders.appendWithoutTransaction(orderId))
                .isInstanceOf(OutboxException.class)
                .hasMessageContaining("no Spring transaction is active")
                .hasMessageContaining("@Transactional");
        assertThat(database.eventsOfOrder(orderId)).isZero();
    }

    @Test
    @DisplayName("the operator endpoint lists a dead letter and requeues it; the relay then publishes it")
    void requeueDeadLetter() {
        UUID orderId = UUID.randomUUID();
        OutboxEvent event = orders.placeOrder(orderId);
        await().atMost(Duration.ofSeconds(20))
                .until(() -> database.events("sent") > 0 && !published(orderId).isEmpty());
        database.execute("UPDATE " + database.table + " SET status = 'failed', attempts = max_attempts, "
                + "last_error = 'broker said no', sent_at = NULL WHERE id = '" + event.id() + "'");

        assertThat(endpoint.section("dead-letters", null, 50).get("deadLetters"))
                .asList()
                .anySatisfy(letter ->
                        assertThat(letter).asString().contains(event.id().toString()));
        Map<String, Object> result = endpoint.act(null, "requeue", event.id().toString(), null, null, null, null);

        assertThat(result).containsEntry("requeued", 1L);
        await().atMost(Duration.ofSeconds(20)).until(() -> published(orderId).size() == 2);
        assertThat(endpoint.status().get("counts")).asString().doesNotContain("failed=1");
    }

    @Test
    @DisplayName("the health indicator goes DOWN when the broker stops and UP when it returns")
    void healthFollowsTheBroker() {
        Optional<EmbeddedKafkaBroker> broker = kafka.embeddedBroker();
        Assumptions.assumeTrue(broker.isPresent(), "needs the in-process broker, which the test can stop");
        assertThat(health.health().getStatus()).isEqualTo(Status.UP);

        broker.get().stop();
        try {
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> health.health().getStatus().equals(Status.DOWN));
            assertThat(health.health().getDetails().get("broker"))
                    .asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP)
                    .containsEntry("status", "DOWN")
                    .containsKey("downFor");
        } finally {
            broker.get().restart();
        }
        await().atMost(Duration.ofSeconds(60))
                .until(() -> health.health().getStatus().equals(Status.UP));
    }
}
