package dev.outboxjava.it.faults.suite;

import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.it.faults.ExposureLog;
import dev.outboxjava.it.faults.FaultInjector;
import dev.outboxjava.it.faults.FaultInjectors;
import dev.outboxjava.kafka.KafkaPublisher;
import dev.outboxjava.kafka.KafkaPublisherConfig;
import dev.outboxjava.testkit.fixture.BrokerInbox;
import dev.outboxjava.testkit.kafka.EmbeddedKafkaBroker;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;

/** A Kafka broker of this run's own (in-process KRaft), stopped and restarted on its log directory for outages. */
final class KafkaUnderTest implements BrokerUnderTest {

    private final EmbeddedKafkaBroker broker;
    private final String topic;

    KafkaUnderTest() {
        this.broker = EmbeddedKafkaBroker.start();
        this.topic = "faults-" + UUID.randomUUID().toString().substring(0, 8);
        broker.createTopic(topic, 4);
    }

    @Override
    public String name() {
        return "kafka";
    }

    @Override
    public String destination() {
        return topic;
    }

    @Override
    public Map<String, String> workerEnvironment(String relayName) {
        return Map.of(
                "OUTBOX_BROKER",
                "kafka",
                "OUTBOX_KAFKA_BOOTSTRAP_SERVERS",
                broker.bootstrapServers(),
                "OUTBOX_KAFKA_CLIENT_ID",
                "faults-" + relayName);
    }

    @Override
    public Publisher newPublisher(String relayName) {
        return KafkaPublisher.create(KafkaPublisherConfig.builder()
                .bootstrapServers(broker.bootstrapServers())
                .property("client.id", "faults-" + relayName)
                .property("max.block.ms", 3_000)
                .closeTimeout(Duration.ofSeconds(2))
                .build());
    }

    @Override
    public BrokerInbox inbox() {
        return BrokerInbox.kafka(Map.of("bootstrap.servers", broker.bootstrapServers()), topic);
    }

    @Override
    public FaultInjector outage(ExposureLog exposure) {
        return FaultInjectors.kafkaOutage(broker, exposure, Duration.ofSeconds(4), Duration.ofSeconds(5));
    }

    @Override
    public void close() {
        broker.close();
    }
}
