package dev.outboxjava.spring.boot.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.spring.boot.OutboxRoute;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.core.env.Environment;
import org.springframework.transaction.support.TransactionTemplate;

/** A @SpringBootTest with nothing but the annotation: its events reach the fixture's Kafka broker. */
@DisplayName("@OutboxServices")
// tag::outbox-services[]
@SpringBootTest(properties = "outbox.schema.initialize=true")
@OutboxServices
class OutboxServicesTest {
    // end::outbox-services[]

    @SpringBootApplication
    static class Shop {}

    @OutboxRoute(destination = "orders", key = "orderId")
    record OrderPlaced(UUID orderId) {}

    @Autowired
    ApplicationEventPublisher events;

    @Autowired
    TransactionTemplate transactions;

    @Autowired
    PostgresOutboxStore store;

    @Autowired
    Environment environment;

    @Test
    @DisplayName("gives the application PostgreSQL in a schema of its own and the Kafka broker: an event published "
            + "in a transaction is sent")
    void servicesWithoutDynamicProperties() throws Exception {
        assertThat(environment.getProperty("spring.datasource.url")).contains("currentSchema=");
        assertThat(environment.getProperty("spring.kafka.bootstrap-servers")).isNotBlank();
        assertThat(environment.getProperty("outbox.schema.initialize")).isEqualTo("true");

        try (Admin admin = Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                environment.getProperty("spring.kafka.bootstrap-servers")))) {
            admin.createTopics(List.of(new NewTopic("orders", 1, (short) 1)))
                    .all()
                    .get();
        }
        transactions.executeWithoutResult(status -> events.publishEvent(new OrderPlaced(UUID.randomUUID())));

        await().atMost(Duration.ofSeconds(30))
                .until(() -> store.countByStatus().getOrDefault(EventStatus.SENT, 0L) == 1L);
    }
}
