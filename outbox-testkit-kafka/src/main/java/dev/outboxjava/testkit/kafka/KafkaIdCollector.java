package dev.outboxjava.testkit.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consumes a topic from its first record on, on a thread of its own, and remembers the event id of
 * every record (its {@code ce_id} header, as the outbox's Kafka publisher writes it). It goes on
 * polling while the broker is down and reads on once it is back, so a test can stop and restart the
 * broker under it; unlike {@link KafkaFixture#consume}, it needs no fixture and no expected count.
 *
 * <pre>{@code
 * try (KafkaIdCollector received = KafkaIdCollector.start(broker.bootstrapServers(), topic)) {
 *     await().until(() -> received.ids().containsAll(expected));
 * }
 * }</pre>
 */
public final class KafkaIdCollector implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(KafkaIdCollector.class);
    private static final String ID_HEADER = "ce_id";
    private static final Duration POLL = Duration.ofMillis(200);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);

    private final Set<String> ids = ConcurrentHashMap.newKeySet();
    private final Thread thread;
    private volatile boolean consuming = true;

    private KafkaIdCollector(String bootstrapServers, String topic) {
        thread = new Thread(() -> consume(bootstrapServers, topic), "kafka-id-collector-" + topic);
        thread.setDaemon(true);
    }

    /**
     * Starts consuming {@code topic} of the cluster at {@code bootstrapServers} in a consumer group of
     * its own, from the earliest offset.
     */
    public static KafkaIdCollector start(String bootstrapServers, String topic) {
        KafkaIdCollector inbox = new KafkaIdCollector(
                Objects.requireNonNull(bootstrapServers, "bootstrapServers"), Objects.requireNonNull(topic, "topic"));
        inbox.thread.start();
        return inbox;
    }

    /** The distinct event ids received so far. */
    public Set<String> ids() {
        return Set.copyOf(ids);
    }

    /** How many distinct event ids were received so far. */
    public int distinct() {
        return ids.size();
    }

    private void consume(String bootstrapServers, String topic) {
        Map<String, Object> properties = Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrapServers,
                ConsumerConfig.GROUP_ID_CONFIG,
                "outbox-kafka-id-collector-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                "earliest");
        try (KafkaConsumer<String, byte[]> consumer =
                new KafkaConsumer<>(properties, new StringDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topic));
            while (consuming) {
                for (ConsumerRecord<String, byte[]> record : consumer.poll(POLL)) {
                    Header id = record.headers().lastHeader(ID_HEADER);
                    if (id != null) {
                        ids.add(new String(id.value(), StandardCharsets.UTF_8));
                    }
                }
            }
        } catch (RuntimeException e) {
            // the test then fails on what did not arrive; this says why nothing more did
            log.warn("Kafka id collector for {} stopped: {}", topic, e.toString());
        }
    }

    /** Stops consuming and waits (up to 30 seconds) for the consumer to close. */
    @Override
    public void close() {
        consuming = false;
        try {
            thread.join(STOP_TIMEOUT.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
