package dev.outboxjava.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.Delivery;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.rabbitmq.RabbitMqPublisher;
import dev.outboxjava.spring.boot.app.OrderService;
import dev.outboxjava.spring.boot.app.ShopApplication;
import dev.outboxjava.testkit.rabbitmq.RabbitMqDestination;
import dev.outboxjava.testkit.rabbitmq.RabbitMqFixture;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The same service relaying to RabbitMQ through the connection settings of Spring AMQP (spring.rabbitmq.*). */
@SpringBootTest(classes = ShopApplication.class)
@DisplayName("A Spring Boot service relaying to RabbitMQ")
class SpringBootRabbitMqIT {

    static final ShopDatabase database = new ShopDatabase();
    static final RabbitMqFixture rabbit = RabbitMqFixture.start();
    static final RabbitMqDestination destination = rabbit.createDestination("shop-orders");

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        database.properties().forEach((key, value) -> registry.add(key, () -> value));
        registry.add("outbox.broker", () -> "rabbitmq");
        registry.add("spring.rabbitmq.host", rabbit::host);
        registry.add("spring.rabbitmq.port", rabbit::port);
        registry.add("spring.rabbitmq.username", rabbit::username);
        registry.add("spring.rabbitmq.password", rabbit::password);
        registry.add("spring.rabbitmq.virtual-host", rabbit::virtualHost);
        registry.add("shop.topic", destination::exchange);
        registry.add("outbox.relay.poll-interval", () -> "1h");
    }

    @AfterAll
    static void stopServices() {
        rabbit.delete(destination);
        rabbit.close();
        database.drop();
    }

    @Autowired
    OrderService orders;

    @Autowired
    Publisher publisher;

    @Test
    @DisplayName("commit: the event reaches the exchange through Spring AMQP's connection settings, at once")
    void commit() {
        assertThat(publisher).isInstanceOf(RabbitMqPublisher.class);
        OutboxEvent event = orders.placeOrder(UUID.randomUUID());

        List<Delivery> received = rabbit.receive(destination, 1, Duration.ofSeconds(20));

        assertThat(received)
                .singleElement()
                .satisfies(delivery -> assertThat(delivery.getProperties().getMessageId())
                        .isEqualTo(event.id().toString()));
        assertThat(publisher.checkHealth().healthy()).isTrue();
    }
}
