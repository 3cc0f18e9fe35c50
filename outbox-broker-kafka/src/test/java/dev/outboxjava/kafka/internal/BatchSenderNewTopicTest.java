package dev.outboxjava.kafka.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.PublishOutcome;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The guard against Kafka's new-topic race (KAFKA-15591): what the sender does while a topic's
 * partitions are not served yet, driven by a scripted probe, Kafka's {@link MockProducer} and a
 * manual clock.
 */
@DisplayName("BatchSender on a topic created a moment ago")
class BatchSenderNewTopicTest {

    private static final String TOPIC = "orders";
    private static final Node BROKER = new Node(1, "127.0.0.1", 9092);

    private final MockProducer<String, byte[]> producer = new MockProducer<>(
            new Cluster(
                    "cluster",
                    List.of(BROKER),
                    IntStream.range(0, 3)
                            .mapToObj(
                                    p -> new PartitionInfo(TOPIC, p, BROKER, new Node[] {BROKER}, new Node[] {BROKER}))
                            .toList(),
                    Set.of(),
                    Set.of()),
            true,
            null,
            new StringSerializer(),
            new ByteArraySerializer());
    private final ScriptedProbe probe = new ScriptedProbe();
    private final AtomicLong now = new AtomicLong();
    private final BatchSender sender = new BatchSender(
            new ProducerLifecycle(properties -> producer, Map.of()),
            probe,
            Duration.ofSeconds(1),
            Duration.ofSeconds(1),
            BatchSender.METADATA_PATIENCE,
            now::get);

    private static List<OutboxEvent> batch(int size) {
        return IntStream.range(0, size)
                .mapToObj(n -> OutboxEvent.builder()
                        .type("order.placed")
                        .destination(TOPIC)
                        .key("order-" + n)
                        .payload("{}".getBytes(StandardCharsets.UTF_8))
                        .build())
                .toList();
    }

    private List<PublishOutcome> send(List<OutboxEvent> batch) throws Exception {
        BatchOutcomes outcomes = new BatchOutcomes(batch);
        sender.send(batch, outcomes, System.nanoTime() + Duration.ofSeconds(5).toNanos());
        return outcomes.result().get(5, TimeUnit.SECONDS);
    }

    @Test
    @DisplayName("while its partitions are not served, its events fail retryably, naming the topic, and none is sent")
    void heldBackWhileNotServed() throws Exception {
        probe.answers.add(ClusterProbe.PartitionsState.NOT_YET_SERVED);

        List<PublishOutcome> outcomes = send(batch(2));

        assertThat(outcomes)
                .hasSize(2)
                .allSatisfy(outcome -> assertThat(outcome)
                        .isInstanceOfSatisfying(PublishOutcome.Failed.class, failed -> {
                            assertThat(failed.retryable()).isTrue();
                            assertThat(failed.reason()).contains("'orders'").contains("not all of its 3 partitions");
                        }));
        assertThat(producer.history()).isEmpty();
    }

    @Test
    @DisplayName("once served, its events are sent, and the topic is not asked about again")
    void sentOnceServed() throws Exception {
        probe.answers.add(ClusterProbe.PartitionsState.NOT_YET_SERVED);
        probe.answers.add(ClusterProbe.PartitionsState.SERVED);
        send(batch(1));

        assertThat(send(batch(2)))
                .allSatisfy(outcome -> assertThat(outcome).isInstanceOf(PublishOutcome.Published.class));
        assertThat(send(batch(2)))
                .allSatisfy(outcome -> assertThat(outcome).isInstanceOf(PublishOutcome.Published.class));
        assertThat(probe.calls).hasValue(2);
        assertThat(producer.history()).hasSize(4);
    }

    @Test
    @DisplayName("a topic still not served after the patience is an outage, not a new topic: its events are sent")
    void sentAfterThePatience() throws Exception {
        probe.answers.add(ClusterProbe.PartitionsState.NOT_YET_SERVED);
        probe.answers.add(ClusterProbe.PartitionsState.NOT_YET_SERVED);
        probe.answers.add(ClusterProbe.PartitionsState.NOT_YET_SERVED);
        send(batch(1));
        now.addAndGet(BatchSender.UNSERVED_TOPIC_PATIENCE.toNanos() - 1);
        assertThat(send(batch(1))).singleElement().isInstanceOf(PublishOutcome.Failed.class);

        now.addAndGet(1);

        assertThat(send(batch(1))).singleElement().isInstanceOf(PublishOutcome.Published.class);
    }

    @Test
    @DisplayName("a probe that cannot tell (no permission to list offsets) holds nothing back")
    void unanswerableProbeHoldsNothingBack() throws Exception {
        probe.answers.add(ClusterProbe.PartitionsState.UNANSWERABLE);

        assertThat(send(batch(2)))
                .allSatisfy(outcome -> assertThat(outcome).isInstanceOf(PublishOutcome.Published.class));
    }

    /** Answers from a script, in order; counts the questions. */
    private static final class ScriptedProbe extends ClusterProbe {
        final Deque<PartitionsState> answers = new ArrayDeque<>();
        final AtomicInteger calls = new AtomicInteger();

        ScriptedProbe() {
            super(Map.of(), "127.0.0.1:9092");
        }

        @Override
        public PartitionsState partitionsState(String topic, int partitions, Duration timeout) {
            calls.incrementAndGet();
            return answers.removeFirst();
        }
    }
}
