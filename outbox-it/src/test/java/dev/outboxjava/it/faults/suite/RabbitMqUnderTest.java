package dev.outboxjava.it.faults.suite;

import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.it.faults.ExposureLog;
import dev.outboxjava.it.faults.FaultInjector;
import dev.outboxjava.it.faults.FaultInjectors;
import dev.outboxjava.it.faults.RabbitMqConnectionCloser;
import dev.outboxjava.rabbitmq.RabbitMqPublisher;
import dev.outboxjava.rabbitmq.RabbitMqPublisherConfig;
import dev.outboxjava.testkit.fixture.BrokerInbox;
import dev.outboxjava.testkit.rabbitmq.RabbitMqDestination;
import dev.outboxjava.testkit.rabbitmq.RabbitMqFixture;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;

/**
 * The local RabbitMQ, shared with others: an exchange and queue of this run's own, and outages made by
 * closing only this run's relay connections ({@code rabbitmqctl close_connection}), never
 * {@code stop_app} or {@code close_all_connections}.
 */
final class RabbitMqUnderTest implements BrokerUnderTest {

    private final RabbitMqFixture fixture;
    private final RabbitMqDestination destination;
    private final String connectionPrefix;

    RabbitMqUnderTest(RabbitMqFixture fixture) {
        this.fixture = fixture;
        this.destination = fixture.createDestination("faults");
        this.connectionPrefix = "outbox-faults-" + UUID.randomUUID().toString().substring(0, 8);
    }

    @Override
    public String name() {
        return "rabbitmq";
    }

    @Override
    public String destination() {
        return destination.exchange();
    }

    @Override
    public Map<String, String> workerEnvironment(String relayName) {
        return Map.of(
                "OUTBOX_BROKER",
                "rabbitmq",
                "OUTBOX_RABBITMQ_URI",
                fixture.uri(),
                "OUTBOX_RABBITMQ_CONNECTION_NAME",
                connectionPrefix + "-" + relayName);
    }

    @Override
    public Publisher newPublisher(String relayName) {
        return new RabbitMqPublisher(RabbitMqPublisherConfig.builder()
                .uri(fixture.uri())
                .connectionName(connectionPrefix + "-" + relayName)
                .recoveryInterval(Duration.ofSeconds(1))
                .build());
    }

    @Override
    public BrokerInbox inbox() {
        return BrokerInbox.amqp(fixture.connectionFactory(), destination.queue());
    }

    @Override
    public FaultInjector outage(ExposureLog exposure) {
        return FaultInjectors.rabbitMqConnectionsClosed(
                new RabbitMqConnectionCloser(connectionPrefix, "rabbitmqctl"), exposure, Duration.ofSeconds(3));
    }

    @Override
    public void close() {
        fixture.delete(destination);
    }
}
