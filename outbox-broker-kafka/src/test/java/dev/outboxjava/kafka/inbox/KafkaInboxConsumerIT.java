package dev.outboxjava.kafka.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxjava.core.inbox.InMemoryInbox;
import dev.outboxjava.core.inbox.InboxKey;
import dev.outboxjava.core.inbox.UnidentifiableMessageException;
import dev.outboxjava.core.time.ManualClock;
import dev.outboxjava.testkit.kafka.EmbeddedKafkaBroker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The consumer loop against an in-process Kafka broker, deduplicating through an in-memory inbox. */
@DisplayName("Kafka inbox consumer loop")
class KafkaInboxConsumerIT {

    private static EmbeddedKafkaBroker broker;

    private final InMemoryInbox<InboxKey> memory = InMemoryInbox.create(ManualClock.startingAtEpochOf2024());
    private final KafkaInbox<InboxKey> inbox = KafkaInbox.of(memory, "shipping");
    private final Map<String, AtomicInteger> effects = new ConcurrentHashMap<>();
    private String topic;
    private String group;

    @BeforeAll
    static void startBroker() {
        broker = EmbeddedKafkaBroker.start();
    }

    @AfterAll
    static void stopBroker() {
        if (broker != null) {
            broker.close();
        }
    }

    @BeforeEach
    void newTopic() {
        topic = "inbox-" + UUID.randomUUID();
        group = "inbox-group-" + UUID.randomUUID();
        broker.createTopic(topic, 1);
    }

    private void send(List<String> ceIds) {
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(
                Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        broker.bootstrapServers(),
                        ProducerConfig.ACKS_CONFIG,
                        "all"),
                new StringSerializer(),
                new ByteArraySerializer())) {
            for (String id : ceIds) {
                ProducerRecord<String, byte[]> record =
                        new ProducerRecord<>(topic, "k", id.getBytes(StandardCharsets.UTF_8));
                if (!id.isEmpty()) {
                    record.headers().add(KafkaInbox.CLOUD_EVENTS_ID_HEADER, id.getBytes(StandardCharsets.UTF_8));
                }
                producer.send(record);
            }
            producer.flush();
        }
    }

    private KafkaConsumer<String, byte[]> consumer() {
        KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        broker.bootstrapServers(),
                        ConsumerConfig.GROUP_ID_CONFIG,
                        group,
                        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                        "earliest",
                        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                        false),
                new StringDeserializer(),
                new ByteArrayDeserializer());
        consumer.subscribe(List.of(topic));
        return consumer;
    }

    private void effect(ConsumerRecord<String, byte[]> record) {
        effects.computeIfAbsent(new String(record.value(), StandardCharsets.UTF_8), id -> new AtomicInteger())
                .incrementAndGet();
    }

    private long committed(KafkaConsumer<String, byte[]> consumer) {
        TopicPartition partition = new TopicPartition(topic, 0);
        OffsetAndMetadata offset = consumer.committed(Set.of(partition)).get(partition);
        return offset == null ? 0 : offset.offset();
    }

    @Test
    @DisplayName("every event arriving three times has its effect once; offsets are committed past all records")
    void duplicatesHaveOneEffect() {
        List<String> copies = new ArrayList<>();
        for (int copy = 0; copy < 3; copy++) {
            for (int i = 0; i < 5; i++) {
                copies.add("id-" + i);
            }
        }
        send(copies);
        try (KafkaConsumer<String, byte[]> consumer = consumer()) {
            KafkaInboxConsumer<String, InboxKey> loop =
                    KafkaInboxConsumer.create(consumer, inbox, (key, record) -> effect(record));
            AtomicInteger processed = new AtomicInteger();
            AtomicInteger duplicates = new AtomicInteger();

            await().atMost(Duration.ofSeconds(60)).pollInSameThread().until(() -> {
                KafkaInboxConsumer.PollResult result = loop.pollOnce(Duration.ofMillis(200));
                processed.addAndGet(result.processed());
                duplicates.addAndGet(result.duplicates());
                return processed.get() + duplicates.get() == 15;
            });

            assertThat(processed).hasValue(5);
            assertThat(duplicates).hasValue(10);
            assertThat(effects)
                    .hasSize(5)
                    .allSatisfy((id, count) -> assertThat(count).hasValue(1));
            assertThat(committed(consumer)).isEqualTo(15);
        }
    }

    @Test
    @DisplayName("a failing record is delivered again, in order, after the records before it were committed")
    void failureRewinds() {
        send(List.of("id-0", "id-1", "id-2", "id-3"));
        AtomicBoolean failedOnce = new AtomicBoolean();
        List<String> order = new CopyOnWriteArrayList<>();
        try (KafkaConsumer<String, byte[]> consumer = consumer()) {
            KafkaInboxConsumer<String, InboxKey> loop = KafkaInboxConsumer.create(consumer, inbox, (key, record) -> {
                if (key.messageId().equals("id-2") && failedOnce.compareAndSet(false, true)) {
                    throw new IllegalStateException("the shipping database said no");
                }
                order.add(key.messageId());
                effect(record);
            });

            KafkaInboxConsumer.PollResult failed = pollUntilSomething(loop);
            while (failed.failure().isEmpty()) {
                failed = pollUntilSomething(loop); // the first poll may return only part of the records
            }
            assertThat(failed.failure().get()).hasMessageContaining("said no");
            assertThat(committed(consumer)).isEqualTo(2);

            await().atMost(Duration.ofSeconds(60)).pollInSameThread().until(() -> {
                loop.pollOnce(Duration.ofMillis(200));
                return order.size() == 4;
            });
            assertThat(order).containsExactly("id-0", "id-1", "id-2", "id-3");
            assertThat(committed(consumer)).isEqualTo(4);
        }
    }

    @Test
    @DisplayName("records processed but not committed (a crash before commitSync) are redelivered and skipped")
    void crashBeforeCommit() {
        send(List.of("id-0", "id-1", "id-2"));
        try (KafkaConsumer<String, byte[]> crashing = consumer()) {
            List<ConsumerRecord<String, byte[]>> seen = new ArrayList<>();
            await().atMost(Duration.ofSeconds(60)).pollInSameThread().until(() -> {
                crashing.poll(Duration.ofMillis(200)).forEach(seen::add);
                return seen.size() == 3;
            });
            for (ConsumerRecord<String, byte[]> record : seen) {
                inbox.process(record, key -> effect(record));
            }
            // closed without committing: the "crash"
        }
        try (KafkaConsumer<String, byte[]> consumer = consumer()) {
            KafkaInboxConsumer<String, InboxKey> loop =
                    KafkaInboxConsumer.create(consumer, inbox, (key, record) -> effect(record));
            AtomicInteger duplicates = new AtomicInteger();
            await().atMost(Duration.ofSeconds(60)).pollInSameThread().until(() -> {
                KafkaInboxConsumer.PollResult result = loop.pollOnce(Duration.ofMillis(200));
                assertThat(result.processed()).isZero();
                return duplicates.addAndGet(result.duplicates()) == 3;
            });
            assertThat(committed(consumer)).isEqualTo(3);
        }
        assertThat(effects)
                .hasSize(3)
                .allSatisfy((id, count) -> assertThat(count).hasValue(1));
    }

    @Test
    @DisplayName("a record without ce_id is not skipped: it fails, and its offset is not committed")
    void missingIdBlocks() {
        send(List.of("id-0", ""));
        try (KafkaConsumer<String, byte[]> consumer = consumer()) {
            KafkaInboxConsumer<String, InboxKey> loop =
                    KafkaInboxConsumer.create(consumer, inbox, (key, record) -> effect(record));
            KafkaInboxConsumer.PollResult result = pollUntilSomething(loop);
            while (result.failure().isEmpty()) {
                result = pollUntilSomething(loop);
            }
            assertThat(result.failure().get()).isInstanceOf(UnidentifiableMessageException.class);
            assertThat(committed(consumer)).isEqualTo(1);
        }
    }

    @Test
    @DisplayName("run() processes until stop() is called from another thread")
    void runUntilStopped() throws InterruptedException {
        send(List.of("id-0", "id-1", "id-0"));
        try (KafkaConsumer<String, byte[]> consumer = consumer()) {
            KafkaInboxConsumer<String, InboxKey> loop =
                    KafkaInboxConsumer.create(consumer, inbox, (key, record) -> effect(record));
            Thread thread = new Thread(() -> loop.run(Duration.ofMillis(200), Duration.ofMillis(100)), "inbox-loop");
            thread.start();
            await().atMost(Duration.ofSeconds(60)).until(() -> effects.size() == 2 && memory.size() == 2);
            loop.stop();
            thread.join(30_000);
            assertThat(thread.isAlive()).isFalse();
            long committed;
            try {
                committed = committed(consumer);
            } catch (WakeupException pendingFromStop) {
                committed = committed(consumer); // stop() may leave one wake-up for the next blocking call
            }
            assertThat(committed).isEqualTo(3);
        }
        assertThat(effects).allSatisfy((id, count) -> assertThat(count).hasValue(1));
    }

    private static KafkaInboxConsumer.PollResult pollUntilSomething(KafkaInboxConsumer<String, InboxKey> loop) {
        KafkaInboxConsumer.PollResult[] last = new KafkaInboxConsumer.PollResult[1];
        await().atMost(Duration.ofSeconds(60)).pollInSameThread().until(() -> {
            last[0] = loop.pollOnce(Duration.ofMillis(200));
            return last[0] != KafkaInboxConsumer.PollResult.EMPTY;
        });
        return last[0];
    }
}
