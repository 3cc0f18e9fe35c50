package dev.outboxjava.examples.consuming;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.kafka.KafkaPublisher;
import dev.outboxjava.kafka.KafkaPublisherConfig;
import dev.outboxjava.kafka.inbox.KafkaInboxConsumer.PollResult;
import dev.outboxjava.testkit.kafka.KafkaFixture;
import dev.outboxjava.testkit.postgres.PostgresExtension;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Kafka recipe against real services: the in-process Kafka broker and the shared PostgreSQL.
 * Every redelivery — from the consumer group after a crash, or from the relay publishing twice —
 * credits an order once.
 */
@DisplayName("Recipe: Kafka consumer + inbox in one database transaction, offsets committed after")
class KafkaLoyaltyConsumerIT {

    @RegisterExtension
    static final PostgresExtension postgres = new PostgresExtension();

    private static KafkaFixture kafka;

    private LoyaltyTables tables;
    private String topic;

    @BeforeAll
    static void startKafka() {
        kafka = KafkaFixture.start();
    }

    @AfterAll
    static void stopKafka() {
        if (kafka != null) {
            kafka.close();
        }
    }

    @BeforeEach
    void createTablesAndTopic() throws Exception {
        tables = new LoyaltyTables(postgres);
        topic = kafka.createTopic("loyalty", 3);
    }

    @AfterEach
    void dropTablesAndTopic() {
        tables.drop();
        kafka.deleteTopic(topic);
    }

    @Test
    @DisplayName("a consumer that dies between its database commit and its offset commit: the group's next "
            + "consumer receives the records again and credits none of them twice")
    void consumerDiesBeforeItsOffsetCommit() throws Exception {
        List<OutboxEvent> orders = tables.placeOrders(topic, 9);
        try (KafkaPublisher publisher = publisher()) {
            tables.relay(publisher);
        }
        String group = "loyalty-" + UUID.randomUUID();

        try (KafkaConsumer<String, byte[]> first = newConsumer(group)) {
            KafkaLoyaltyConsumer dying =
                    new KafkaLoyaltyConsumer(diesAtItsOffsetCommit(first), topic, tables.inbox, tables.points);
            await().atMost(Duration.ofSeconds(60)).pollInSameThread().until(() -> {
                try {
                    dying.pollOnce(Duration.ofMillis(200));
                    return false;
                } catch (ConsumerDied e) {
                    return true;
                }
            });
        }
        long creditedBeforeTheCrash = tables.processed(orders, KafkaLoyaltyConsumer.CONSUMER_NAME);
        assertThat(creditedBeforeTheCrash)
                .as("records credited and committed in the database before the crash")
                .isPositive();

        AtomicInteger processed = new AtomicInteger();
        AtomicInteger duplicates = new AtomicInteger();
        try (KafkaConsumer<String, byte[]> second = newConsumer(group)) {
            KafkaLoyaltyConsumer next = new KafkaLoyaltyConsumer(second, topic, tables.inbox, tables.points);
            pollUntil(next, processed, duplicates, orders.size());

            Set<TopicPartition> partitions = second.partitionsFor(topic).stream()
                    .map(info -> new TopicPartition(topic, info.partition()))
                    .collect(Collectors.toSet());
            Map<TopicPartition, Long> committed = second.committed(partitions).entrySet().stream()
                    .collect(Collectors.toMap(
                            Map.Entry::getKey,
                            e -> e.getValue() == null ? 0L : e.getValue().offset()));
            assertThat(committed).as("offsets committed after processing").isEqualTo(second.endOffsets(partitions));
        }
        assertThat(duplicates.get())
                .as("records received again and skipped by the inbox")
                .isEqualTo(creditedBeforeTheCrash);
        assertThat(processed.get()).isEqualTo(orders.size() - creditedBeforeTheCrash);
        tables.assertEachOrderCreditedOnce(orders);
    }

    @Test
    @DisplayName("an event the relay published twice is credited once")
    void eventPublishedTwice() throws Exception {
        List<OutboxEvent> orders = tables.placeOrders(topic, 6);
        try (KafkaPublisher publisher = publisher()) {
            tables.relay(publisher);
            // a relay that died between the broker's acknowledgement and its mark publishes them again
            publisher.publish(orders, Duration.ofSeconds(30)).get();
        }

        AtomicInteger processed = new AtomicInteger();
        AtomicInteger duplicates = new AtomicInteger();
        try (KafkaConsumer<String, byte[]> consumer = newConsumer("loyalty-" + UUID.randomUUID())) {
            pollUntil(
                    new KafkaLoyaltyConsumer(consumer, topic, tables.inbox, tables.points),
                    processed,
                    duplicates,
                    2 * orders.size());
        }

        assertThat(processed.get()).isEqualTo(orders.size());
        assertThat(duplicates.get()).isEqualTo(orders.size());
        tables.assertEachOrderCreditedOnce(orders);
    }

    @Test
    @DisplayName(
            "a credit that fails rolls its inbox record back with it: the record, delivered again, is credited once")
    void creditFails() throws Exception {
        List<OutboxEvent> orders = tables.placeOrders(topic, 6);
        try (KafkaPublisher publisher = publisher()) {
            tables.relay(publisher);
        }
        tables.failTheFirstCredit();

        AtomicInteger processed = new AtomicInteger();
        AtomicInteger duplicates = new AtomicInteger();
        AtomicInteger failures = new AtomicInteger();
        try (KafkaConsumer<String, byte[]> consumer = newConsumer("loyalty-" + UUID.randomUUID())) {
            KafkaLoyaltyConsumer loyalty = new KafkaLoyaltyConsumer(consumer, topic, tables.inbox, tables.points);
            await().atMost(Duration.ofSeconds(60)).pollInSameThread().until(() -> {
                PollResult result = loyalty.pollOnce(Duration.ofMillis(200));
                result.failure().ifPresent(failure -> failures.incrementAndGet());
                processed.addAndGet(result.processed());
                duplicates.addAndGet(result.duplicates());
                return processed.get() + duplicates.get() >= orders.size();
            });
        }

        assertThat(failures.get()).as("polls that stopped at the failed credit").isEqualTo(1);
        assertThat(processed.get())
                .as("the failed record left no inbox record, so its redelivery was credited")
                .isEqualTo(orders.size());
        assertThat(duplicates.get()).isZero();
        tables.assertEachOrderCreditedOnce(orders);
    }

    private static void pollUntil(
            KafkaLoyaltyConsumer consumer, AtomicInteger processed, AtomicInteger duplicates, int records) {
        await().atMost(Duration.ofSeconds(60)).pollInSameThread().until(() -> {
            PollResult result = consumer.pollOnce(Duration.ofMillis(200));
            assertThat(result.failure()).isEmpty();
            processed.addAndGet(result.processed());
            duplicates.addAndGet(result.duplicates());
            return processed.get() + duplicates.get() >= records;
        });
    }

    private static KafkaPublisher publisher() {
        return KafkaPublisher.create(KafkaPublisherConfig.builder()
                .bootstrapServers(kafka.bootstrapServers())
                .build());
    }

    private static KafkaConsumer<String, byte[]> newConsumer(String group) {
        return new KafkaConsumer<>(KafkaLoyaltyConsumer.consumerProperties(kafka.bootstrapServers(), group));
    }

    /** The process dying at its offset commit: the records' transactions committed, their offsets never do. */
    private static final class ConsumerDied extends RuntimeException {
        ConsumerDied() {
            super("the consumer died before its offset commit");
        }
    }

    @SuppressWarnings("unchecked")
    private static Consumer<String, byte[]> diesAtItsOffsetCommit(Consumer<String, byte[]> consumer) {
        return (Consumer<String, byte[]>) Proxy.newProxyInstance(
                Consumer.class.getClassLoader(), new Class<?>[] {Consumer.class}, (proxy, method, args) -> {
                    if (method.getName().startsWith("commit")) {
                        throw new ConsumerDied();
                    }
                    try {
                        return method.invoke(consumer, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
