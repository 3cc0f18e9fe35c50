package dev.outboxjava.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.PublishOutcome;
import dev.outboxjava.testkit.kafka.EmbeddedKafkaBroker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A Kafka outage: the in-process broker is stopped and restarted on the same port and log
 * directory. This class owns its broker (not the shared fixture), since it takes it down.
 */
class KafkaPublisherOutageIT {

    /** Short, so the outage tests do not wait long for the outcomes they expect to fail. */
    private static final Duration OUTAGE_TIMEOUT = Duration.ofSeconds(6);

    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private static EmbeddedKafkaBroker broker;
    private KafkaPublisher publisher;
    private String topic;

    @BeforeAll
    static void startBroker() {
        broker = EmbeddedKafkaBroker.start();
    }

    @AfterAll
    static void closeBroker() {
        if (broker != null) {
            broker.close();
        }
    }

    @BeforeEach
    void topic() {
        broker.restart();
        topic = "outage-" + UUID.randomUUID();
        broker.createTopic(topic, 2);
    }

    @AfterEach
    void closePublisher() {
        if (publisher != null) {
            publisher.close();
        }
    }

    private KafkaPublisherConfig config() {
        return KafkaPublisherConfig.builder()
                .bootstrapServers(broker.bootstrapServers())
                .property("max.block.ms", 2000)
                .healthCheckTimeout(Duration.ofSeconds(2))
                .closeTimeout(Duration.ofSeconds(1))
                .build();
    }

    private List<OutboxEvent> events(int count) {
        return IntStream.range(0, count)
                .mapToObj(n -> OutboxEvent.builder()
                        .type("order.placed")
                        .key("order-" + (n % 10))
                        .destination(topic)
                        .payload(("{\"n\":" + n + "}").getBytes(StandardCharsets.UTF_8))
                        .build())
                .toList();
    }

    private List<PublishOutcome> publish(List<OutboxEvent> batch, Duration timeout) throws Exception {
        return publisher.publish(batch, timeout).get(timeout.toSeconds() + 30, TimeUnit.SECONDS);
    }

    private static Set<UUID> ids(List<PublishOutcome> outcomes, Class<? extends PublishOutcome> kind) {
        Set<UUID> ids = new HashSet<>();
        outcomes.stream().filter(kind::isInstance).forEach(o -> ids.add(o.eventId()));
        return ids;
    }

    private Set<String> idsOnTopic(int atLeast) {
        Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        Set<String> ids = new HashSet<>();
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(props)) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition()))
                    .toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (ids.size() < atLeast && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                    ids.add(new String(record.headers().lastHeader("ce_id").value(), StandardCharsets.UTF_8));
                }
            }
        }
        return ids;
    }

    private static void assertAllRetryableFailures(List<PublishOutcome> outcomes) {
        assertThat(outcomes)
                .isNotEmpty()
                .allSatisfy(outcome -> assertThat(outcome)
                        .isInstanceOfSatisfying(
                                PublishOutcome.Failed.class,
                                f -> assertThat(f.retryable()).isTrue()));
    }

    @Test
    @DisplayName(
            "given the broker stopped before a batch, every event is a retryable failure, the health check is down, and after a restart the same publisher delivers")
    void stoppedBeforeBatch() throws Exception {
        publisher = KafkaPublisher.create(config());
        assertThat(publish(events(5), TIMEOUT))
                .allSatisfy(o -> assertThat(o).isInstanceOf(PublishOutcome.Published.class));

        broker.stop();
        List<OutboxEvent> duringOutage = events(50);
        List<PublishOutcome> outcomes = publish(duringOutage, OUTAGE_TIMEOUT);

        assertThat(outcomes).hasSize(50);
        assertAllRetryableFailures(outcomes);
        assertThat(publisher.checkHealth().healthy()).isFalse();

        broker.restart();
        List<OutboxEvent> afterRestart = events(50);
        assertThat(publish(afterRestart, TIMEOUT))
                .allSatisfy(o -> assertThat(o).isInstanceOf(PublishOutcome.Published.class));
        assertThat(publish(duringOutage, TIMEOUT))
                .as("the retry of the failed events")
                .allSatisfy(o -> assertThat(o).isInstanceOf(PublishOutcome.Published.class));
        await().atMost(Duration.ofSeconds(60))
                .until(() -> publisher.checkHealth().healthy());
        Set<String> expected = new HashSet<>();
        duringOutage.forEach(e -> expected.add(e.id().toString()));
        afterRestart.forEach(e -> expected.add(e.id().toString()));
        assertThat(idsOnTopic(105)).containsAll(expected);
    }

    @Test
    @DisplayName(
            "given a publisher started while the broker is down (no metadata yet), events are retryable failures within the timeout, and it delivers once the broker is back")
    void startedDuringOutage() throws Exception {
        broker.stop();
        publisher = KafkaPublisher.create(config());

        List<PublishOutcome> outcomes = publish(events(10), OUTAGE_TIMEOUT);

        assertAllRetryableFailures(outcomes);
        broker.restart();
        assertThat(publish(events(10), TIMEOUT))
                .allSatisfy(o -> assertThat(o).isInstanceOf(PublishOutcome.Published.class));
    }

    @Test
    @DisplayName(
            "given the broker stopped in the middle of a batch, the events it did not acknowledge are retryable failures, every acknowledged one is on the topic, and after a restart the rest is delivered")
    void stoppedDuringBatch() throws Exception {
        int stopAt = 1000;
        AtomicInteger sends = new AtomicInteger();
        publisher = KafkaPublisher.create(config(), properties -> new KafkaProducer<String, byte[]>(properties) {
            @Override
            public Future<RecordMetadata> send(ProducerRecord<String, byte[]> record, Callback callback) {
                if (sends.incrementAndGet() == stopAt) {
                    broker.stop();
                }
                return super.send(record, callback);
            }
        });
        List<OutboxEvent> batch = events(2000);

        List<PublishOutcome> outcomes = publish(batch, OUTAGE_TIMEOUT);

        assertThat(outcomes).hasSize(2000).allSatisfy(outcome -> {
            if (outcome instanceof PublishOutcome.Failed failed) {
                assertThat(failed.retryable()).as(failed.reason()).isTrue();
            }
        });
        Set<UUID> failed = ids(outcomes, PublishOutcome.Failed.class);
        Set<UUID> published = ids(outcomes, PublishOutcome.Published.class);
        System.out.printf(
                "broker stopped at send %d of %d: %d acknowledged before the outage, %d retryable failures%n",
                stopAt, batch.size(), published.size(), failed.size());
        assertThat(failed)
                .as("events handed over after the broker went down")
                .containsAll(batch.subList(stopAt, batch.size()).stream()
                        .map(OutboxEvent::id)
                        .toList());

        broker.restart();
        List<OutboxEvent> retry =
                batch.stream().filter(e -> failed.contains(e.id())).toList();
        assertThat(publish(retry, TIMEOUT)).allSatisfy(o -> assertThat(o).isInstanceOf(PublishOutcome.Published.class));
        Set<String> onTopic = idsOnTopic(batch.size());
        assertThat(onTopic)
                .as("acknowledged before the outage")
                .containsAll(published.stream().map(UUID::toString).toList());
        assertThat(onTopic)
                .as("every event after the retry")
                .containsAll(batch.stream().map(e -> e.id().toString()).toList());
    }
}
