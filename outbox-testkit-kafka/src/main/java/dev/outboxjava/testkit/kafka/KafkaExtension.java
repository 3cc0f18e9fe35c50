package dev.outboxjava.testkit.kafka;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives a test class a Kafka cluster ({@link KafkaFixture}, found or started once per test run, so an
 * embedded broker starts only once, and stopped at its end) and deletes the topics the class made
 * after the class.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final KafkaExtension kafka = new KafkaExtension();
 *
 * @Test
 * void something() {
 *     String topic = kafka.newTopic("orders", 3);
 *     String bootstrap = kafka.fixture().bootstrapServers();
 * }
 * }</pre>
 *
 * Register it as a {@code static} field, so it sees the whole class.
 */
public final class KafkaExtension implements BeforeAllCallback, AfterAllCallback {

    private static final Logger log = LoggerFactory.getLogger(KafkaExtension.class);
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(KafkaExtension.class);

    private final List<String> topics = new CopyOnWriteArrayList<>();
    private volatile KafkaFixture fixture;

    /** An extension for {@code @RegisterExtension}. */
    public KafkaExtension() {}

    @Override
    public void beforeAll(ExtensionContext context) {
        fixture = context.getRoot()
                .getStore(NAMESPACE)
                .getOrComputeIfAbsent(
                        SharedFixture.class, type -> new SharedFixture(KafkaFixture.start()), SharedFixture.class)
                .fixture;
    }

    @Override
    public void afterAll(ExtensionContext context) {
        for (String topic : topics) {
            try {
                fixture.deleteTopic(topic);
            } catch (RuntimeException e) {
                log.warn("could not delete test topic {}: {}", topic, e.toString());
            }
        }
        topics.clear();
    }

    /** The cluster, shared by every class of the test run. */
    public KafkaFixture fixture() {
        KafkaFixture started = fixture;
        if (started == null) {
            throw new IllegalStateException(
                    "KafkaExtension is not started: register it as a static field with " + "@RegisterExtension");
        }
        return started;
    }

    /** A fresh topic {@code <prefix>.<random>} with {@code partitions} partitions, deleted after the test class. */
    public String newTopic(String prefix, int partitions) {
        Objects.requireNonNull(prefix, "prefix");
        String topic = fixture().createTopic(prefix, partitions);
        topics.add(topic);
        return topic;
    }

    /** Closes the run's fixture when JUnit closes the root context. */
    private record SharedFixture(KafkaFixture fixture)
            implements ExtensionContext.Store.CloseableResource, AutoCloseable {
        @Override
        public void close() {
            fixture.close();
        }
    }
}
