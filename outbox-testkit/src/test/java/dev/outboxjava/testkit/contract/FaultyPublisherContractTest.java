package dev.outboxjava.testkit.contract;

import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.testkit.FaultyPublisher;
import dev.outboxjava.testkit.RecordingPublisher;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

/** Without a scripted fault, a faulty publisher is a faithful publisher: it passes the contract. */
class FaultyPublisherContractTest extends PublisherContract {

    private final RecordingPublisher broker = new RecordingPublisher();
    private final FaultyPublisher publisher = FaultyPublisher.wrapping(broker);

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
        return broker.published(event -> event.destination().equals(destination)).stream()
                .map(RecordingPublisherContractTest::asReceived)
                .toList();
    }
}
