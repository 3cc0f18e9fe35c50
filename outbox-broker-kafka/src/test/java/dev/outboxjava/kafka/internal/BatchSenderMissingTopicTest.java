package dev.outboxjava.kafka.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.PublishOutcome;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A batch with a topic the producer has no metadata for: Kafka's producer waits {@code max.block.ms}
 * for it, here one hour (a scripted {@link MockProducer}), so a batch that completes at all did not wait
 * for it; the cluster's answers come from a scripted probe.
 */
@DisplayName("BatchSender with a topic that does not exist")
class BatchSenderMissingTopicTest {

    private static final String TOPIC = "orders";
    private static final String MISSING = "no-such-topic";
    private static final Duration MAX_BLOCK = Duration.ofHours(1);
    /** Far below MAX_BLOCK: a batch done by then did not wait for the missing topic's metadata. */
    private static final int BATCH_SECONDS = 60;

    private static final Node BROKER = new Node(1, "127.0.0.1", 9092);

    /** Released when the test ends, so that a lookup still waiting gives up as at max.block.ms. */
    private final CountDownLatch maxBlockElapsed = new CountDownLatch(1);

    private final AtomicInteger missingLookups = new AtomicInteger();
    private final AtomicInteger endedLookups = new AtomicInteger();
    private volatile boolean created;
    private final MockProducer<String, byte[]> producer =
            new MockProducer<>(cluster(), true, null, new StringSerializer(), new ByteArraySerializer()) {
                // Not synchronized, unlike MockProducer's: KafkaProducer's wait holds no lock that send needs.
                @Override
                public List<PartitionInfo> partitionsFor(String topic) {
                    if (topic.equals(MISSING) && !created) {
                        missingLookups.incrementAndGet();
                        try {
                            // KafkaProducer waits for the metadata until max.block.ms, then throws
                            awaitMaxBlock();
                            throw new TimeoutException("Topic " + MISSING + " not present in metadata after "
                                    + MAX_BLOCK.toMillis() + " ms.");
                        } finally {
                            endedLookups.incrementAndGet();
                        }
                    }
                    return super.partitionsFor(topic);
                }
            };
    private final ScriptedProbe probe = new ScriptedProbe();
    private final BatchSender sender = new BatchSender(
            new ProducerLifecycle(properties -> producer, Map.of()),
            probe,
            MAX_BLOCK,
            Duration.ofSeconds(5),
            BatchSender.METADATA_PATIENCE,
            System::nanoTime);
    private final ExecutorService senderThread = Executors.newSingleThreadExecutor();

    private static Cluster cluster() {
        return new Cluster(
                "cluster",
                List.of(BROKER),
                IntStream.range(0, 2)
                        .boxed()
                        .flatMap(p -> Set.of(TOPIC, MISSING).stream()
                                .map(topic ->
                                        new PartitionInfo(topic, p, BROKER, new Node[] {BROKER}, new Node[] {BROKER})))
                        .toList(),
                Set.of(),
                Set.of());
    }

    private void awaitMaxBlock() {
        try {
            maxBlockElapsed.await(MAX_BLOCK.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @AfterEach
    void end() {
        maxBlockElapsed.countDown();
        senderThread.shutdownNow();
        sender.close();
    }

    private static OutboxEvent event(String topic, String key) {
        OutboxEvent.Builder builder = OutboxEvent.builder()
                .type("order.placed")
                .destination(topic)
                .payload("{}".getBytes(StandardCharsets.UTF_8));
        return key == null ? builder.build() : builder.key(key).build();
    }

    /** Sends on a thread of its own, as the publisher does, and waits for the outcomes far below max.block.ms. */
    private List<PublishOutcome> send(List<OutboxEvent> batch) throws Exception {
        BatchOutcomes outcomes = new BatchOutcomes(batch);
        senderThread.execute(() -> sender.send(
                batch, outcomes, System.nanoTime() + Duration.ofHours(2).toNanos()));
        return outcomes.result().get(BATCH_SECONDS, TimeUnit.SECONDS);
    }

    @Test
    @DisplayName(
            "its events are unroutable, naming the topic, without waiting max.block.ms; the other topics' events are "
                    + "sent, and a later event of a failed key is held back")
    void neighboursAreSentWithoutWaitingForMaxBlock() throws Exception {
        probe.states.put(MISSING, ClusterProbe.TopicState.MISSING);
        OutboxEvent lost = event(MISSING, "a");
        OutboxEvent other = event(TOPIC, "b");
        OutboxEvent sameKey = event(TOPIC, "a");
        OutboxEvent noKey = event(TOPIC, null);

        List<PublishOutcome> outcomes = send(List.of(lost, other, sameKey, noKey));

        assertThat(outcomes.get(0)).isInstanceOfSatisfying(PublishOutcome.Failed.class, failed -> {
            assertThat(failed.unroutable()).isTrue();
            assertThat(failed.retryable()).isTrue();
            assertThat(failed.reason()).contains("topic '" + MISSING + "' does not exist");
        });
        assertThat(outcomes.get(1)).isInstanceOf(PublishOutcome.Published.class);
        assertThat(outcomes.get(2))
                .isInstanceOfSatisfying(
                        PublishOutcome.Failed.class,
                        failed -> assertThat(failed.heldBack()).isTrue());
        assertThat(outcomes.get(3)).isInstanceOf(PublishOutcome.Published.class);
        assertThat(producer.history()).extracting(record -> record.topic()).containsExactly(TOPIC, TOPIC);
        assertThat(missingLookups).hasValue(1);
    }

    @Test
    @DisplayName(
            "a topic found missing is asked about again in later batches, not waited for; once it exists its events are sent")
    void missingTopicIsAskedAboutNotWaitedFor() throws Exception {
        probe.states.put(MISSING, ClusterProbe.TopicState.MISSING);
        send(List.of(event(MISSING, "a"), event(TOPIC, "b")));

        for (int batch = 0; batch < 3; batch++) {
            assertThat(send(List.of(event(MISSING, "a"), event(TOPIC, "b"))))
                    .satisfiesExactly(
                            lost -> assertThat(lost)
                                    .isInstanceOfSatisfying(
                                            PublishOutcome.Failed.class,
                                            failed -> assertThat(failed.unroutable())
                                                    .isTrue()),
                            sent -> assertThat(sent).isInstanceOf(PublishOutcome.Published.class));
        }
        assertThat(missingLookups).as("waits for the missing topic's metadata").hasValue(1);
        assertThat(probe.asked.get(MISSING))
                .as("questions about the missing topic")
                .isEqualTo(4);

        created = true;
        probe.states.put(MISSING, ClusterProbe.TopicState.EXISTS);
        maxBlockElapsed.countDown();
        await().untilAsserted(() -> assertThat(endedLookups).hasValue(1));

        assertThat(send(List.of(event(MISSING, "a")))).singleElement().isInstanceOf(PublishOutcome.Published.class);
        assertThat(producer.history()).extracting(record -> record.topic()).contains(MISSING);
    }

    @Test
    @DisplayName(
            "a topic without metadata on a cluster that does not answer is a retryable failure, not unroutable, naming the topic")
    void unansweredTopicIsRetryable() throws Exception {
        probe.states.put(MISSING, ClusterProbe.TopicState.UNKNOWN);

        List<PublishOutcome> outcomes = send(List.of(event(MISSING, "a"), event(TOPIC, "b")));

        assertThat(outcomes.get(0)).isInstanceOfSatisfying(PublishOutcome.Failed.class, failed -> {
            assertThat(failed.unroutable()).isFalse();
            assertThat(failed.retryable()).isTrue();
            assertThat(failed.reason()).contains("no metadata for topic '" + MISSING + "'");
        });
        assertThat(outcomes.get(1)).isInstanceOf(PublishOutcome.Published.class);
    }

    /** Answers from a table (a topic it does not list exists); counts the questions per topic. */
    private static final class ScriptedProbe extends ClusterProbe {
        final Map<String, TopicState> states = new java.util.concurrent.ConcurrentHashMap<>();
        final Map<String, Integer> asked = new java.util.concurrent.ConcurrentHashMap<>();

        ScriptedProbe() {
            super(Map.of(), "127.0.0.1:9092");
        }

        @Override
        public Map<String, TopicState> topicStates(Collection<String> topics, Duration timeout) {
            Map<String, TopicState> answers = new HashMap<>();
            for (String topic : topics) {
                asked.merge(topic, 1, Integer::sum);
                answers.put(topic, states.getOrDefault(topic, TopicState.EXISTS));
            }
            return answers;
        }

        @Override
        public PartitionsState partitionsState(String topic, int partitions, Duration timeout) {
            return PartitionsState.SERVED;
        }
    }
}
