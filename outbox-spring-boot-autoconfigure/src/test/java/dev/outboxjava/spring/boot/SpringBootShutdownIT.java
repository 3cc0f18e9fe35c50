package dev.outboxjava.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.spring.boot.app.OrderService;
import dev.outboxjava.spring.boot.app.ShopApplication;
import dev.outboxjava.testkit.kafka.KafkaFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The application shuts down while the relay drains a backlog: the batches in flight finish or go back
 * to pending, nothing stays leased, and the next start publishes the rest. Every event reaches Kafka.
 */
@DisplayName("A Spring Boot service shut down mid-drain")
class SpringBootShutdownIT {

    private static final int EVENTS = 3000;

    static final ShopDatabase database = new ShopDatabase();
    static final KafkaFixture kafka = KafkaFixture.start();
    static final String topic = kafka.createTopic("shop-shutdown", 2);

    @AfterAll
    static void stopServices() {
        kafka.close();
        database.drop();
    }

    private static ConfigurableApplicationContext start() {
        return new SpringApplicationBuilder(ShopApplication.class)
                .properties(database.propertyValues(
                        "outbox.broker=kafka",
                        "spring.kafka.bootstrap-servers=" + kafka.bootstrapServers(),
                        "shop.topic=" + topic,
                        "outbox.relay.batch-size=100",
                        "outbox.relay.shutdown-timeout=5s"))
                .run();
    }

    @Test
    @DisplayName("loses nothing and leaves nothing leased; the next start publishes the rest")
    void gracefulShutdownMidDrain() {
        Set<UUID> appended = new HashSet<>();
        try (ConfigurableApplicationContext first = start()) {
            OrderService orders = first.getBean(OrderService.class);
            SpringOutbox outbox = first.getBean(SpringOutbox.class);
            TransactionTemplate transactions = first.getBean(TransactionTemplate.class);
            for (int t = 0; t < EVENTS / 500; t++) {
                List<OutboxEvent> batch = new ArrayList<>();
                for (int i = 0; i < 500; i++) {
                    batch.add(orders.orderPlaced(UUID.randomUUID()));
                }
                transactions.executeWithoutResult(status -> outbox.append(batch));
                batch.forEach(event -> appended.add(event.id()));
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> database.events("sent") > 0);
        }
        assertThat(database.events("in_flight"))
                .as("a graceful stop leaves no lease behind")
                .isZero();
        assertThat(database.events("sent") + database.events("pending")).isEqualTo(EVENTS);

        try (ConfigurableApplicationContext second = start()) {
            await().atMost(Duration.ofMinutes(2)).until(() -> database.events("sent") == EVENTS);
        }
        List<ConsumerRecord<String, byte[]>> records = kafka.consume(topic, EVENTS, Duration.ofSeconds(60));
        Set<UUID> delivered = new HashSet<>();
        records.forEach(record -> delivered.add(
                UUID.fromString(new String(record.headers().lastHeader("ce_id").value()))));
        assertThat(delivered).as("every committed event reached Kafka").containsAll(appended);
    }
}
