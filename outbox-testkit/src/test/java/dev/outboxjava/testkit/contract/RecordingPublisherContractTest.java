package dev.outboxjava.testkit.contract;

import dev.outboxjava.core.CloudEventAttributes;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.testkit.RecordingPublisher;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

/**
 * The recording publisher passes the same publisher contract as the Kafka and RabbitMQ publishers,
 * reading "what a consumer received" straight from its recording. This class is also the README's
 * example of adopting a contract suite.
 */
class RecordingPublisherContractTest extends PublisherContract {

    private final RecordingPublisher publisher = new RecordingPublisher();

    @Override
    protected Publisher publisher() {
        return publisher;
    }

    @Override
    protected String newDestination() {
        return "orders-" + UUID.randomUUID();
    }

    @Override
    protected List<ReceivedMessage> consume(String destination, int expected, Duration timeout) {
        return publisher.published(event -> event.destination().equals(destination)).stream()
                .map(RecordingPublisherContractTest::asReceived)
                .toList();
    }

    static ReceivedMessage asReceived(OutboxEvent event) {
        return new ReceivedMessage(
                event.id().toString(),
                event.type(),
                event.source(),
                event.key(),
                event.contentType(),
                event.headers(),
                event.payload(),
                CloudEventAttributes.of(event));
    }
}
