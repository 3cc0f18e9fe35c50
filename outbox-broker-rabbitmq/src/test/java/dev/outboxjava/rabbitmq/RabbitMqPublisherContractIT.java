package dev.outboxjava.rabbitmq;

import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.testkit.contract.PublisherContract;
import dev.outboxjava.testkit.contract.ReceivedMessage;
import dev.outboxjava.testkit.rabbitmq.RabbitMqDestination;
import dev.outboxjava.testkit.rabbitmq.RabbitMqFixture;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The publisher contract against the RabbitMQ the fixture finds (here: the local one). */
class RabbitMqPublisherContractIT extends PublisherContract {

    private static RabbitMqFixture rabbit;
    private static RabbitMqPublisher publisher;
    private static final Map<String, RabbitMqDestination> destinations = new ConcurrentHashMap<>();

    @BeforeAll
    static void start() {
        rabbit = RabbitMqFixture.start();
        publisher = new RabbitMqPublisher(RabbitMqPublisherConfig.builder()
                .uri(rabbit.uri())
                .connectionName("outbox-contract-it-" + UUID.randomUUID())
                .build());
    }

    @AfterAll
    static void stop() {
        publisher.close();
        rabbit.close();
    }

    @Override
    protected Publisher publisher() {
        return publisher;
    }

    @Override
    protected String newDestination() {
        RabbitMqDestination destination = rabbit.createDestination("contract");
        destinations.put(destination.exchange(), destination);
        return destination.exchange();
    }

    @Override
    protected List<ReceivedMessage> consume(String destination, int expected, Duration timeout) {
        return rabbit.receive(destinations.get(destination), expected, timeout).stream()
                .map(AmqpConsumerView::read)
                .toList();
    }
}
