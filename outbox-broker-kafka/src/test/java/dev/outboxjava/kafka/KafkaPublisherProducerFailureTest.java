package dev.outboxjava.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.PublishOutcome;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * How the publisher reacts when its producer breaks, driven by Kafka's own {@link MockProducer}
 * (a fenced producer cannot be provoked on a single idempotent broker on demand).
 */
class KafkaPublisherProducerFailureTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final List<MockProducer<String, byte[]>> producers = new CopyOnWriteArrayList<>();
    private KafkaPublisher publisher;

    private static OutboxEvent event(String key) {
        return OutboxEvent.builder()
                .type("order.placed")
                .destination("orders")
                .key(key)
                .payload("{}".getBytes(StandardCharsets.UTF_8))
                .build();
    }

    private KafkaPublisher publisherOver(java.util.function.Supplier<MockProducer<String, byte[]>> supplier) {
        // No flushing: MockProducer.flush() acknowledges every record, and these tests script each outcome.
        KafkaPublisherConfig config = KafkaPublisherConfig.builder()
                .bootstrapServers("127.0.0.1:1")
                .closeTimeout(Duration.ZERO)
                .flushEachBatch(false)
                .build();
        return KafkaPublisher.create(config, (Map<String, Object> properties) -> {
            MockProducer<String, byte[]> producer = supplier.get();
            producers.add(producer);
            return producer;
        });
    }

    private static MockProducer<String, byte[]> manual() {
        return new MockProducer<>(false, null, new StringSerializer(), new ByteArraySerializer());
    }

    @AfterEach
    void close() {
        if (publisher != null) {
            publisher.close();
        }
    }

    @Test
    @DisplayName(
            "given a producer fenced mid-batch, its events are retryable failures and the next batch uses a new producer")
    void fencedProducerIsReplaced() throws Exception {
        publisher = publisherOver(KafkaPublisherProducerFailureTest::manual);
        OutboxEvent first = event("a");
        OutboxEvent second = event("b");

        CompletableFuture<List<PublishOutcome>> pending = publisher.publish(List.of(first, second), TIMEOUT);
        await().until(() -> producers.get(0).history().size() == 2);
        producers.get(0).errorNext(new ProducerFencedException("fenced by a newer instance"));
        producers.get(0).completeNext();
        List<PublishOutcome> outcomes = pending.get(10, TimeUnit.SECONDS);

        assertThat(outcomes)
                .filteredOn(o -> o.eventId().equals(first.id()))
                .singleElement()
                .isInstanceOfSatisfying(PublishOutcome.Failed.class, failed -> {
                    assertThat(failed.retryable()).isTrue();
                    assertThat(failed.reason())
                            .contains("ProducerFencedException")
                            .contains("topic 'orders'");
                });

        OutboxEvent third = event("c");
        CompletableFuture<List<PublishOutcome>> next = publisher.publish(List.of(third), TIMEOUT);
        await().until(() -> producers.size() == 2 && producers.get(1).history().size() == 1);
        producers.get(1).completeNext();

        assertThat(next.get(10, TimeUnit.SECONDS)).singleElement().isInstanceOf(PublishOutcome.Published.class);
        assertThat(publisher.producersCreated()).isEqualTo(2);
        await().until(() -> producers.get(0).closed());
    }

    @Test
    @DisplayName(
            "given a producer whose send throws, publish does not throw: the event is retryable and later same-key events are held back")
    void sendThrows() throws Exception {
        AtomicBoolean thrown = new AtomicBoolean();
        publisher =
                publisherOver(() -> new MockProducer<>(true, null, new StringSerializer(), new ByteArraySerializer()) {
                    @Override
                    public synchronized Future<RecordMetadata> send(
                            ProducerRecord<String, byte[]> record, Callback callback) {
                        if (thrown.compareAndSet(false, true)) {
                            throw new IllegalStateException("Cannot perform operation after producer has been closed");
                        }
                        return super.send(record, callback);
                    }
                });
        OutboxEvent failing = event("same");
        OutboxEvent sameKey = event("same");

        List<PublishOutcome> outcomes =
                publisher.publish(List.of(failing, sameKey), TIMEOUT).get(10, TimeUnit.SECONDS);

        assertThat(outcomes)
                .allSatisfy(outcome -> assertThat(outcome)
                        .isInstanceOfSatisfying(
                                PublishOutcome.Failed.class,
                                f -> assertThat(f.retryable()).isTrue()));
        assertThat(publisher.publish(List.of(event("other")), TIMEOUT).get(10, TimeUnit.SECONDS))
                .singleElement()
                .isInstanceOf(PublishOutcome.Published.class);
        assertThat(publisher.producersCreated()).isEqualTo(2);
    }

    @Test
    @DisplayName(
            "an event the broker acknowledged after an earlier event of its key failed is reported held back, not published")
    void acknowledgedAfterFailureOfItsKeyIsHeldBack() throws Exception {
        publisher = publisherOver(KafkaPublisherProducerFailureTest::manual);
        OutboxEvent failing = event("same");
        OutboxEvent sameKey = event("same");
        OutboxEvent other = event("other");

        CompletableFuture<List<PublishOutcome>> pending = publisher.publish(List.of(failing, sameKey, other), TIMEOUT);
        await().until(() -> producers.get(0).history().size() == 3);
        producers.get(0).errorNext(new RecordTooLargeException("too large"));
        producers.get(0).completeNext();
        producers.get(0).completeNext();
        List<PublishOutcome> outcomes = pending.get(10, TimeUnit.SECONDS);

        assertThat(outcomes.get(0))
                .isInstanceOfSatisfying(
                        PublishOutcome.Failed.class,
                        failed -> assertThat(failed.heldBack()).isFalse());
        assertThat(outcomes.get(1)).isInstanceOfSatisfying(PublishOutcome.Failed.class, failed -> {
            assertThat(failed.heldBack()).isTrue();
            assertThat(failed.retryable()).isTrue();
            assertThat(failed.reason()).contains(failing.id().toString());
        });
        assertThat(outcomes.get(2)).isInstanceOf(PublishOutcome.Published.class);
    }

    @Test
    @DisplayName("events not acknowledged within the publish timeout are retryable failures")
    void timeout() throws Exception {
        publisher = publisherOver(KafkaPublisherProducerFailureTest::manual);
        OutboxEvent event = event("k");

        List<PublishOutcome> outcomes =
                publisher.publish(List.of(event), Duration.ofMillis(200)).get(10, TimeUnit.SECONDS);

        assertThat(outcomes).singleElement().isInstanceOfSatisfying(PublishOutcome.Failed.class, failed -> {
            assertThat(failed.retryable()).isTrue();
            assertThat(failed.reason()).contains("not acknowledged");
        });
    }

    @Test
    @DisplayName("a closed publisher answers with retryable failures instead of throwing")
    void closed() throws Exception {
        publisher = publisherOver(KafkaPublisherProducerFailureTest::manual);
        publisher.close();

        List<PublishOutcome> outcomes =
                publisher.publish(List.of(event("k")), TIMEOUT).get(1, TimeUnit.SECONDS);

        assertThat(outcomes)
                .singleElement()
                .isInstanceOfSatisfying(
                        PublishOutcome.Failed.class,
                        failed -> assertThat(failed.retryable()).isTrue());
        assertThat(publisher.checkHealth().healthy()).isFalse();
    }
}
