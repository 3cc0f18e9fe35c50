package dev.outboxjava.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import dev.outboxjava.testkit.fixture.DockerAvailability;
import dev.outboxjava.testkit.fixture.LocalPort;
import dev.outboxjava.testkit.fixture.ServiceConfig;
import dev.outboxjava.testkit.fixture.ServiceOrigin;
import dev.outboxjava.testkit.rabbitmq.RabbitMqDestination;
import dev.outboxjava.testkit.rabbitmq.RabbitMqFixture;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The testkit's AMQP fixture: how it resolves its broker, isolates tests and cleans up. */
class RabbitMqFixtureIT {

    @AfterEach
    void clearSettings() {
        System.clearProperty(RabbitMqFixture.URI_PROPERTY);
        System.clearProperty(ServiceConfig.SKIP_LOCAL);
    }

    @Test
    @DisplayName("an explicit URI wins over everything else")
    void explicitUri() {
        try (RabbitMqFixture local = RabbitMqFixture.start()) {
            System.setProperty(RabbitMqFixture.URI_PROPERTY, local.uri());
            try (RabbitMqFixture explicit = RabbitMqFixture.start()) {
                assertThat(explicit.origin()).isEqualTo(ServiceOrigin.EXPLICIT);
                assertThat(explicit.port()).isEqualTo(local.port());
            }
        }
    }

    @Test
    @DisplayName("without settings and Docker, the local RabbitMQ on 5672 is used")
    void localBroker() {
        Assumptions.assumeTrue(
                ServiceConfig.lookup(RabbitMqFixture.URI_PROPERTY).isEmpty()
                        && !ServiceConfig.isTrue(ServiceConfig.SKIP_LOCAL)
                        && !DockerAvailability.isAvailable()
                        && LocalPort.isOpen(RabbitMqFixture.LOCAL_HOST, RabbitMqFixture.LOCAL_PORT, 500),
                "needs a RabbitMQ on 127.0.0.1:5672, no Docker and no explicit setting");
        try (RabbitMqFixture rabbit = RabbitMqFixture.start()) {
            assertThat(rabbit.origin()).isEqualTo(ServiceOrigin.LOCAL);
            assertThat(rabbit.uri()).isEqualTo("amqp://guest:guest@127.0.0.1:5672/%2F");
        }
    }

    @Test
    @DisplayName("destinations are isolated, deliver every routing key to their queue, and are deleted")
    void isolatedDestinations() throws Exception {
        try (RabbitMqFixture rabbit = RabbitMqFixture.start()) {
            RabbitMqDestination one = rabbit.createDestination("isolation");
            RabbitMqDestination two = rabbit.createDestination("isolation");
            assertThat(one.exchange()).isNotEqualTo(two.exchange());
            try (Connection connection = rabbit.connectionFactory().newConnection("outbox-fixture-it");
                    Channel channel = connection.createChannel()) {
                channel.basicPublish(one.exchange(), "any.routing.key", null, "hello".getBytes(StandardCharsets.UTF_8));
            }
            assertThat(rabbit.receive(one, 1, Duration.ofSeconds(10)))
                    .singleElement()
                    .extracting(d -> new String(d.getBody(), StandardCharsets.UTF_8))
                    .isEqualTo("hello");
            assertThat(rabbit.receive(two, 1, Duration.ofMillis(300))).isEmpty();

            rabbit.delete(one);
            assertThat(rabbit.exchangeExists(one.exchange())).isFalse();
            assertThat(rabbit.exchangeExists(two.exchange())).isTrue();
        }
    }

    @Test
    @DisplayName("with local services skipped, an embedded broker is started and stopped on close")
    void embeddedStartsAndStops() {
        System.setProperty(ServiceConfig.SKIP_LOCAL, "true");
        int port;
        try (RabbitMqFixture rabbit = RabbitMqFixture.start()) {
            assertThat(rabbit.origin()).isEqualTo(ServiceOrigin.EMBEDDED);
            port = rabbit.port();
            assertThat(LocalPort.isOpen("127.0.0.1", port, 1000)).isTrue();
        }
        assertThat(LocalPort.isOpen("127.0.0.1", port, 1000)).isFalse();
    }
}
