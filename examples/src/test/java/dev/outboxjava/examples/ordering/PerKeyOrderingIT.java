package dev.outboxjava.examples.ordering;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.testkit.fixture.ChildJvm;
import dev.outboxjava.testkit.kafka.KafkaFixture;
import dev.outboxjava.testkit.postgres.PostgresExtension;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Per-key ordering end to end: 2 relay processes × 2 relay threads, per-key ordering, 5 % random retryable
 * publish failures and one key whose head always fails. Every healthy key must arrive complete and
 * in order at a Kafka consumer; the poisoned key stops at its head.
 *
 * <p>The default build runs 200 keys × 100 events; the full size is
 * {@code -Doutbox.ordering.events-per-key=500} (the run prints its rate).
 */
@DisplayName("Per-key ordering end to end, across relay processes and failures")
class PerKeyOrderingIT {

    @RegisterExtension
    static final PostgresExtension postgres = new PostgresExtension();

    private static final int KEYS = Integer.getInteger("outbox.ordering.keys", 200);
    private static final int EVENTS_PER_KEY = Integer.getInteger("outbox.ordering.events-per-key", 100);
    private static final String POISON_KEY = "key-7";

    private static KafkaFixture kafka;

    @BeforeAll
    static void startKafka() {
        kafka = KafkaFixture.start();
    }

    @AfterAll
    static void stopKafka() {
        kafka.close();
    }

    @Test
    @DisplayName("healthy keys arrive complete and in order; the poisoned key stops at its head")
    void ordered() throws Exception {
        String table = postgres.schema() + ".ordered_events";
        Ordering ordering = Ordering.perKey(Ordering.AfterDeadLetter.HOLD_KEY);
        PostgresOutboxStore store = PostgresOutboxStore.create(
                postgres.dataSource(),
                PostgresOutboxConfig.builder()
                        .tableName(table)
                        .ordering(ordering)
                        .build());
        store.ensureSchema();
        String topic = kafka.createTopic("ordering", 6);
        for (int n = 0; n < EVENTS_PER_KEY; n += 5) {
            List<OutboxEvent> chunk = new ArrayList<>();
            for (int m = n; m < Math.min(n + 5, EVENTS_PER_KEY); m++) {
                for (int k = 0; k < KEYS; k++) {
                    String key = "key-" + k;
                    chunk.add(OutboxEvent.builder()
                            .type("account.changed")
                            .key(key)
                            .destination(topic)
                            .payload((key + ":" + m).getBytes(StandardCharsets.UTF_8))
                            .build());
                }
            }
            store.transactional().inTransaction(connection -> chunk);
        }
        int healthyEvents = (KEYS - 1) * EVENTS_PER_KEY;

        long started = System.nanoTime();
        List<ChildJvm> relays = new ArrayList<>();
        try {
            for (int p = 0; p < 2; p++) {
                relays.add(startRelayProcess(table, topic, p));
            }
            Map<String, List<Integer>> arrivals = consumeUntil(topic, healthyEvents, Duration.ofMinutes(8));
            double seconds = (System.nanoTime() - started) / 1e9;
            System.out.printf(
                    "per-key ordering: %d healthy events over %d keys relayed by 2 processes x 2 threads"
                            + " in %.1f s = %.0f events/s (5%% injected failures, one poisoned key)%n",
                    healthyEvents, KEYS - 1, seconds, healthyEvents / seconds);

            for (int k = 0; k < KEYS; k++) {
                String key = "key-" + k;
                List<Integer> firstArrivals = firstOccurrences(arrivals.getOrDefault(key, List.of()));
                if (key.equals(POISON_KEY)) {
                    assertThat(firstArrivals)
                            .as("the poisoned key stops at its head")
                            .isEmpty();
                } else {
                    assertThat(firstArrivals)
                            .as("arrival order of %s", key)
                            .hasSize(EVENTS_PER_KEY)
                            .isSorted();
                }
            }
            Map<EventStatus, Long> counts = store.countByStatus();
            assertThat(counts.get(EventStatus.FAILED))
                    .as("only the poisoned head is a dead letter")
                    .isEqualTo(1L);
            assertThat(counts.get(EventStatus.PENDING))
                    .as("the rest of the poisoned key waits")
                    .isEqualTo(EVENTS_PER_KEY - 1L);
        } finally {
            relays.forEach(ChildJvm::close);
            kafka.deleteTopic(topic);
        }
    }

    private ChildJvm startRelayProcess(String table, String topic, int index) throws Exception {
        Path log = Files.createTempFile("ordered-relay-" + index + "-", ".log");
        System.out.println("relay process " + index + " logs to " + log);
        return ChildJvm.mainClass(
                        OrderedRelayProcess.class.getName(),
                        postgres.fixture().jdbcUrl(),
                        postgres.fixture().user(),
                        postgres.fixture().password(),
                        table,
                        kafka.bootstrapServers(),
                        POISON_KEY,
                        Long.toString(index),
                        "2")
                .jvmOptions("-Xmx256m")
                .inheritEnvironment()
                .logTo(log)
                .start("ordered-relay-" + index);
    }

    /** Reads the topic from the start until {@code wanted} distinct healthy events arrived. */
    private static Map<String, List<Integer>> consumeUntil(String topic, int wanted, Duration timeout) {
        Map<String, List<Integer>> arrivals = new LinkedHashMap<>();
        Set<String> distinct = new HashSet<>();
        Map<String, Object> props = new HashMap<>(kafka.consumerProperties());
        Properties properties = new Properties();
        properties.putAll(props);
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(properties)) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(info -> new TopicPartition(topic, info.partition()))
                    .toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + timeout.toNanos();
            while (distinct.size() < wanted && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                    String[] parts = new String(record.value(), StandardCharsets.UTF_8).split(":");
                    arrivals.computeIfAbsent(parts[0], k -> new ArrayList<>()).add(Integer.parseInt(parts[1]));
                    distinct.add(parts[0] + ":" + parts[1]);
                }
            }
        }
        return arrivals;
    }

    /** The arrival order with repeats (redeliveries) dropped: what a deduplicating consumer applies. */
    private static List<Integer> firstOccurrences(List<Integer> arrivals) {
        Set<Integer> seen = new HashSet<>();
        List<Integer> first = new ArrayList<>();
        for (int n : arrivals) {
            if (seen.add(n)) {
                first.add(n);
            }
        }
        return first;
    }
}
