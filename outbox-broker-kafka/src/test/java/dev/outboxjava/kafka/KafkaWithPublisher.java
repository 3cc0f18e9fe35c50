package dev.outboxjava.kafka;

import dev.outboxjava.testkit.kafka.KafkaFixture;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A Kafka cluster for a test class (see {@link KafkaFixture}) and a publisher to it with the default
 * settings, both closed after the class. Register it as a static field:
 * {@code @RegisterExtension static final KafkaWithPublisher kafka = new KafkaWithPublisher();}.
 */
public final class KafkaWithPublisher implements BeforeAllCallback, AfterAllCallback {

    private KafkaFixture fixture;
    private KafkaPublisher publisher;

    @Override
    public void beforeAll(ExtensionContext context) {
        fixture = KafkaFixture.start();
        publisher = KafkaPublisher.create(KafkaPublisherConfig.builder()
                .bootstrapServers(fixture.bootstrapServers())
                .build());
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (publisher != null) {
            publisher.close();
        }
        if (fixture != null) {
            fixture.close();
        }
    }

    /** The cluster, for topics and for reading what arrived. */
    public KafkaFixture fixture() {
        return fixture;
    }

    /** The publisher to the cluster, with the default settings. */
    public KafkaPublisher publisher() {
        return publisher;
    }
}
