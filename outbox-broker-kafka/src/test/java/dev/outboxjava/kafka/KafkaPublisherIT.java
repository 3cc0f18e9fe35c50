package dev.outboxjava.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.RetryPolicy;
import dev.outboxjava.core.memory.InMemoryOutboxStore;
import dev.outboxjava.core.port.PublishOutcome;
import dev.outboxjava.core.relay.Relay;
import dev.outboxjava.core.relay.RelayConfig;
import dev.outboxjava.core.relay.RelayListener;
import dev.outboxjava.core.time.ManualClock;
import dev.outboxjava.testkit.TestEvents;
import dev.outboxjava.testkit.kafka.KafkaFixture;
import io.cloudevents.CloudEvent;
import io.cloudevents.kafka.CloudEventDeserializer;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The Kafka publisher against a real broker: volume, envelope, and the failures Kafka reports per event. */
class KafkaPublisherIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private static KafkaFixture kafka;
    private static KafkaPublisher publisher;

    @BeforeAll
    static void start() {
        kafka = KafkaFixture.start();
        publisher = KafkaPublisher.create(KafkaPublisherConfig.builder()
                .bootstrapServers(kafka.bootstrapServers())
                .property("max.block.ms", 3000)
                .build());
    }

    @AfterAll
    static void stop() {
        if (publisher != null) {
            publisher.close();
        }
        if (kafka != null) {
            kafka.close();
        }
    }

    private static List<PublishOutcome> publish(List<OutboxEvent> batch) throws Exception {
        return publisher.publish(batch, TIMEOUT).get(TIMEOUT.toSeconds() + 10, TimeUnit.SECONDS);
    }

    private static OutboxEvent event(String topic, int n) {
        return OutboxEvent.builder()
                .type("order.placed")
                .source("/orders-service")
                .key("order-" + (n % 100))
                .destination(topic)
                .payload(("{\"n\":" + n + "}").getBytes(StandardCharsets.UTF_8))
                .header("n", String.valueOf(n))
                .build();
    }

    /** A consumer built with the CloudEvents SDK's Kafka deserializer, reading every partition from the start. */
    private static List<ConsumerRecord<String, CloudEvent>> readCloudEvents(String topic, int expected) {
        Map<String, Object> props = new HashMap<>(kafka.consumerProperties());
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, CloudEventDeserializer.class);
        List<ConsumerRecord<String, CloudEvent>> received = new ArrayList<>();
        try (KafkaConsumer<String, CloudEvent> consumer = new KafkaConsumer<>(props)) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition()))
                    .toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (received.size() < expected && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(500)).forEach(received::add);
            }
            // One more poll: anything beyond the expected count would be a duplicate.
            consumer.poll(Duration.ofMillis(500)).forEach(received::add);
        }
        return received;
    }

    @Test
    @DisplayName(
            "10,000 events published in batches arrive each exactly once, and a CloudEvents SDK consumer reads id, type, source, time, key, headers and payload")
    void tenThousandEvents() throws Exception {
        String topic = kafka.createTopic("volume", 4);
        List<OutboxEvent> events =
                IntStream.range(0, 10_000).mapToObj(n -> event(topic, n)).toList();

        for (int from = 0; from < events.size(); from += 500) {
            List<PublishOutcome> outcomes = publish(events.subList(from, from + 500));
            assertThat(outcomes)
                    .hasSize(500)
                    .allSatisfy(o -> assertThat(o).isInstanceOf(PublishOutcome.Published.class));
        }
        List<ConsumerRecord<String, CloudEvent>> received = readCloudEvents(topic, events.size());

        assertThat(received).hasSize(events.size());
        Map<String, OutboxEvent> byId = new HashMap<>();
        events.forEach(e -> byId.put(e.id().toString(), e));
        assertThat(received)
                .extracting(r -> r.value().getId())
                .doesNotHaveDuplicates()
                .containsExactlyInAnyOrderElementsOf(byId.keySet());
        for (ConsumerRecord<String, CloudEvent> record : received) {
            CloudEvent cloudEvent = record.value();
            OutboxEvent sent = byId.get(cloudEvent.getId());
            assertThat(cloudEvent.getSpecVersion().toString()).isEqualTo("1.0");
            assertThat(cloudEvent.getType()).isEqualTo("order.placed");
            assertThat(cloudEvent.getSource()).isEqualTo(URI.create("/orders-service"));
            assertThat(cloudEvent.getTime().toInstant())
                    .isEqualTo(sent.createdAt().truncatedTo(ChronoUnit.NANOS));
            assertThat(cloudEvent.getDataContentType()).isEqualTo("application/json");
            assertThat(cloudEvent.getData().toBytes()).isEqualTo(sent.payload());
            assertThat(record.key()).isEqualTo(sent.key().orElseThrow());
            assertThat(new String(record.headers().lastHeader("n").value(), StandardCharsets.UTF_8))
                    .isEqualTo(sent.headers().get("n"));
        }
    }

    @Test
    @DisplayName(
            "the CloudEvents subject and dataschema reach a CloudEvents SDK consumer (binary mode), and are absent when not set")
    void subjectAndDataSchema() throws Exception {
        String topic = kafka.createTopic("subject", 1);
        OutboxEvent with = OutboxEvent.builder()
                .type("order.placed")
                .source("/orders-service")
                .destination(topic)
                .subject("order-42")
                .dataSchema("https://example.com/schemas/order-placed-v1.json")
                .payload(new byte[] {1})
                .build();
        OutboxEvent without = event(topic, 2);

        assertThat(publish(List.of(with, without))).allMatch(PublishOutcome.Published.class::isInstance);
        List<ConsumerRecord<String, CloudEvent>> received = readCloudEvents(topic, 2);

        assertThat(received).hasSize(2);
        CloudEvent first = received.get(0).value();
        assertThat(first.getId()).isEqualTo(with.id().toString());
        assertThat(first.getSubject()).isEqualTo("order-42");
        assertThat(first.getDataSchema()).isEqualTo(URI.create("https://example.com/schemas/order-placed-v1.json"));
        CloudEvent second = received.get(1).value();
        assertThat(second.getSubject()).isNull();
        assertThat(second.getDataSchema()).isNull();
    }

    @Test
    @DisplayName(
            "events to a topic created a moment ago are held back until its partitions are served, then arrive complete and in key order")
    void topicCreatedAMomentAgo() throws Exception {
        // One-record batches sent at once put several requests per partition in flight: the shape that
        // loses Kafka's race between a new topic and its first records (KAFKA-15591) when nothing holds
        // them back.
        try (KafkaPublisher eager = KafkaPublisher.create(KafkaPublisherConfig.builder()
                        .bootstrapServers(kafka.bootstrapServers())
                        .property("linger.ms", 0)
                        .property("batch.size", 1)
                        .build());
                Admin admin =
                        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()))) {
            for (int round = 0; round < 10; round++) {
                String topic = "fresh." + UUID.randomUUID();
                admin.createTopics(List.of(new NewTopic(topic, 3, (short) 1)))
                        .all()
                        .get(30, TimeUnit.SECONDS);
                AtomicReference<List<OutboxEvent>> pending = new AtomicReference<>(
                        IntStream.range(0, 300).mapToObj(n -> event(topic, n)).toList());
                int currentRound = round;
                // As the relay would: publish what is pending, keep what failed (only "not served yet"
                // is acceptable), try again until nothing is left.
                await().atMost(Duration.ofSeconds(20))
                        .pollDelay(Duration.ZERO)
                        .pollInterval(Duration.ofMillis(20))
                        .until(() -> {
                            Set<UUID> failed = new HashSet<>();
                            for (PublishOutcome outcome : eager.publish(pending.get(), Duration.ofSeconds(10))
                                    .get(20, TimeUnit.SECONDS)) {
                                if (outcome instanceof PublishOutcome.Failed f) {
                                    assertThat(f.reason())
                                            .as("round %d", currentRound)
                                            .contains("served");
                                    failed.add(f.eventId());
                                }
                            }
                            pending.set(pending.get().stream()
                                    .filter(e -> failed.contains(e.id()))
                                    .toList());
                            return pending.get().isEmpty();
                        });
                Map<String, List<Integer>> orderByKey = new HashMap<>();
                for (ConsumerRecord<String, byte[]> record : kafka.consume(topic, 300, Duration.ofSeconds(30))) {
                    orderByKey
                            .computeIfAbsent(record.key(), k -> new ArrayList<>())
                            .add(Integer.parseInt(
                                    new String(record.headers().lastHeader("n").value(), StandardCharsets.UTF_8)));
                }
                assertThat(orderByKey.values().stream().mapToInt(List::size).sum())
                        .isEqualTo(300);
                orderByKey.forEach(
                        (key, order) -> assertThat(order).as("key %s", key).isSorted());
                kafka.deleteTopic(topic);
            }
        }
    }

    @Test
    @DisplayName("the largest event the builder accepts by default is delivered with Kafka's default size settings")
    void largestAcceptedEventIsDelivered() throws Exception {
        String topic = kafka.createTopic("largest", 1);
        OutboxEvent largest = TestEvents.largestAccepted(topic);
        try (KafkaPublisher defaults = KafkaPublisher.create(KafkaPublisherConfig.builder()
                .bootstrapServers(kafka.bootstrapServers())
                .build())) {
            List<PublishOutcome> outcomes =
                    defaults.publish(List.of(largest), TIMEOUT).get(40, TimeUnit.SECONDS);
            assertThat(outcomes).singleElement().isInstanceOf(PublishOutcome.Published.class);
        }
        ConsumerRecord<String, byte[]> record =
                kafka.consume(topic, 1, Duration.ofSeconds(30)).get(0);
        assertThat(record.value()).hasSize(OutboxEvent.DEFAULT_MAX_PAYLOAD_BYTES);
        assertThat(record.key()).isEqualTo(largest.key().orElseThrow());
        assertThat(new String(record.headers().lastHeader("ce_id").value(), StandardCharsets.UTF_8))
                .isEqualTo(largest.id().toString());
    }

    @Test
    @DisplayName("a record over max.request.size fails, not retryable, and the rest of its batch is published")
    void tooLarge() throws Exception {
        String topic = kafka.createTopic("too-large", 1);
        OutboxEvent before = event(topic, 1);
        OutboxEvent huge = OutboxEvent.builder()
                .type("blob.stored")
                .destination(topic)
                .key("order-1")
                .maxPayloadBytes(4 * 1024 * 1024)
                .payload(new byte[2 * 1024 * 1024])
                .build();
        OutboxEvent after = event(topic, 2);

        List<PublishOutcome> outcomes = publish(List.of(before, huge, after));

        Map<UUID, PublishOutcome> byId = new HashMap<>();
        outcomes.forEach(o -> byId.put(o.eventId(), o));
        assertThat(byId.get(huge.id())).isInstanceOfSatisfying(PublishOutcome.Failed.class, failed -> {
            assertThat(failed.retryable()).isFalse();
            assertThat(failed.reason())
                    .contains("RecordTooLargeException")
                    .contains("max.request.size")
                    .contains(topic);
        });
        assertThat(byId.get(before.id())).isInstanceOf(PublishOutcome.Published.class);
        assertThat(byId.get(after.id())).isInstanceOf(PublishOutcome.Published.class);
        assertThat(kafka.consume(topic, 2, Duration.ofSeconds(30)))
                .extracting(r -> new String(r.headers().lastHeader("ce_id").value(), StandardCharsets.UTF_8))
                .containsExactly(before.id().toString(), after.id().toString());
    }

    @Test
    @DisplayName(
            "a topic that does not exist, on a cluster that does not create topics, is unroutable (retryable within its own budget) and names the topic; its neighbours are published")
    void missingTopic() throws Exception {
        String existing = kafka.createTopic("exists", 1);
        String missing = "missing-" + UUID.randomUUID();
        OutboxEvent lost = event(missing, 1);
        OutboxEvent fine = event(existing, 2);

        List<PublishOutcome> outcomes = publish(List.of(lost, fine));

        assertThat(outcomes)
                .filteredOn(o -> o.eventId().equals(lost.id()))
                .singleElement()
                .isInstanceOfSatisfying(PublishOutcome.Failed.class, failed -> {
                    assertThat(failed.unroutable()).isTrue();
                    assertThat(failed.retryable()).isTrue();
                    assertThat(failed.reason())
                            .contains("'" + missing + "' does not exist")
                            .contains("auto.create.topics.enable=false");
                });
        assertThat(outcomes)
                .filteredOn(o -> o.eventId().equals(fine.id()))
                .singleElement()
                .isInstanceOf(PublishOutcome.Published.class);
    }

    @Test
    @DisplayName(
            "a topic that does not exist does not hold the other events of its batch for max.block.ms, in its first batch or later ones")
    void missingTopicDoesNotWaitForMaxBlock() throws Exception {
        String existing = kafka.createTopic("not-held", 1);
        String missing = "missing-" + UUID.randomUUID();
        // max.block.ms and the publish timeout are ten minutes: a batch done within one did not wait for them
        Duration tenMinutes = Duration.ofMinutes(10);
        try (KafkaPublisher patient = KafkaPublisher.create(KafkaPublisherConfig.builder()
                .bootstrapServers(kafka.bootstrapServers())
                .property("max.block.ms", (int) tenMinutes.toMillis())
                .build())) {
            for (int batch = 0; batch < 3; batch++) {
                OutboxEvent lost = event(missing, batch);
                OutboxEvent fine = event(existing, 50 + batch);

                List<PublishOutcome> outcomes =
                        patient.publish(List.of(lost, fine), tenMinutes).get(60, TimeUnit.SECONDS);

                assertThat(outcomes.get(0))
                        .isInstanceOfSatisfying(
                                PublishOutcome.Failed.class,
                                failed -> assertThat(failed.unroutable()).isTrue());
                assertThat(outcomes.get(1)).isInstanceOf(PublishOutcome.Published.class);
            }
        }
        assertThat(kafka.consume(existing, 3, Duration.ofSeconds(30))).hasSize(3);
    }

    @Test
    @DisplayName(
            "relayed: an event for a missing topic is dead-lettered after the unroutable budget (3), counted as unroutable each time; its neighbour is published once")
    void missingTopicDeadLetteredAfterItsBudget() {
        String existing = kafka.createTopic("neighbour", 1);
        String missing = "missing-" + UUID.randomUUID();
        ManualClock clock = ManualClock.startingAtEpochOf2024();
        InMemoryOutboxStore store = new InMemoryOutboxStore();
        OutboxEvent lost = OutboxEvent.builder()
                .type("order.placed")
                .destination(missing)
                .payload(new byte[0])
                .clock(clock)
                .build();
        OutboxEvent fine = OutboxEvent.builder()
                .type("order.placed")
                .destination(existing)
                .payload(new byte[0])
                .clock(clock)
                .build();
        store.append(lost, fine);
        List<PublishOutcome.Failed> failures = new ArrayList<>();
        Relay relay = new Relay(
                store,
                publisher,
                RelayConfig.ofDefaults(),
                RetryPolicy.builder().jitter(0).build(),
                clock,
                new RelayListener() {
                    @Override
                    public void onFailed(OutboxEvent event, PublishOutcome.Failed failure) {
                        failures.add(failure);
                    }
                });

        for (int attempt = 0; attempt < 3; attempt++) {
            relay.runOnce();
            clock.advance(Duration.ofMinutes(1));
        }

        assertThat(store.find(lost.id()).orElseThrow().status()).isEqualTo(EventStatus.FAILED);
        assertThat(store.find(lost.id()).orElseThrow().attempts()).isEqualTo(3);
        assertThat(failures)
                .hasSize(3)
                .allSatisfy(f -> assertThat(f.unroutable()).isTrue());
        assertThat(store.find(fine.id()).orElseThrow().status()).isEqualTo(EventStatus.SENT);
        assertThat(kafka.consume(existing, 1, Duration.ofSeconds(30))).hasSize(1);
    }

    @Test
    @DisplayName("an invalid topic name fails, not retryable")
    void invalidTopic() throws Exception {
        OutboxEvent event = event("not a valid topic!", 1);

        assertThat(publish(List.of(event)))
                .singleElement()
                .isInstanceOfSatisfying(PublishOutcome.Failed.class, failed -> {
                    assertThat(failed.retryable()).isFalse();
                    assertThat(failed.reason()).contains("InvalidTopicException");
                });
    }

    @Test
    @DisplayName(
            "a batch is sent as soon as it is handed over, not after linger.ms; with flushEachBatch off it waits for linger.ms")
    void batchNotHeldForLinger() throws Exception {
        String topic = kafka.createTopic("linger", 2);
        // A linger far beyond the publish timeout: an event is acknowledged in time only if the batch is
        // sent without lingering. (Kafka wants delivery.timeout.ms >= linger.ms + request.timeout.ms.)
        Map<String, Object> lingerOneHour = Map.of("linger.ms", 3_600_000, "delivery.timeout.ms", 3_700_000);
        Duration timeout = Duration.ofSeconds(10);
        try (KafkaPublisher flushing = KafkaPublisher.create(KafkaPublisherConfig.builder()
                        .bootstrapServers(kafka.bootstrapServers())
                        .properties(lingerOneHour)
                        .build());
                KafkaPublisher lingering = KafkaPublisher.create(KafkaPublisherConfig.builder()
                        .bootstrapServers(kafka.bootstrapServers())
                        .properties(lingerOneHour)
                        .flushEachBatch(false)
                        .build())) {
            for (int batch = 0; batch < 3; batch++) {
                List<OutboxEvent> events =
                        IntStream.range(0, 5).mapToObj(n -> event(topic, n)).toList();
                assertThat(flushing.publish(events, timeout).get(30, TimeUnit.SECONDS))
                        .hasSize(5)
                        .allSatisfy(o -> assertThat(o).isInstanceOf(PublishOutcome.Published.class));
            }

            List<PublishOutcome> held = lingering
                    .publish(List.of(event(topic, 99)), Duration.ofSeconds(2))
                    .get(30, TimeUnit.SECONDS);
            assertThat(held)
                    .singleElement()
                    .isInstanceOfSatisfying(
                            PublishOutcome.Failed.class,
                            failed -> assertThat(failed.reason()).contains("not acknowledged"));
        }
    }

    @Test
    @DisplayName("the health check names the cluster and its brokers")
    void health() {
        assertThat(publisher.checkHealth()).satisfies(health -> {
            assertThat(health.healthy()).isTrue();
            assertThat(health.detail()).contains(kafka.bootstrapServers()).contains("1 broker(s)");
        });
    }
}
