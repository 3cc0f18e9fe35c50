package dev.outboxjava.testkit.resolution;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.testkit.kafka.KafkaFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A topic returned by {@link KafkaFixture#createTopic} takes records at once. Producing right after the
 * controller accepted a topic, before the broker applied it, can lose the race described in
 * KAFKA-15591: the first request of an idempotent producer fails with NOT_LEADER_OR_FOLLOWER, a later
 * one is appended, and the first then spins on OUT_OF_ORDER_SEQUENCE_NUMBER until its delivery timeout.
 */
@DisplayName("KafkaFixture.createTopic")
class KafkaTopicReadinessIT {

    private static final int ROUNDS = 25;
    private static final int PARTITIONS = 3;
    private static final int RECORDS_PER_PARTITION = 20;

    private static KafkaFixture kafka;
    private static KafkaProducer<String, byte[]> producer;

    @BeforeAll
    static void start() {
        kafka = KafkaFixture.start();
        Map<String, Object> settings = new HashMap<>();
        settings.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        settings.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        settings.put(ProducerConfig.ACKS_CONFIG, "all");
        // No lingering and one-record batches: several requests per partition are in flight at once,
        // the shape that loses the race.
        settings.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        settings.put(ProducerConfig.BATCH_SIZE_CONFIG, 1);
        settings.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
        settings.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 10_000);
        producer = new KafkaProducer<>(settings, new StringSerializer(), new ByteArraySerializer());
    }

    @AfterAll
    static void stop() {
        if (producer != null) {
            producer.close();
        }
        if (kafka != null) {
            kafka.close();
        }
    }

    @Test
    @DisplayName("returns a topic whose every partition acknowledges an idempotent producer's first records at once")
    void everyPartitionTakesRecordsAtOnce() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            String topic = kafka.createTopic("readiness", PARTITIONS);
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            for (int n = 0; n < RECORDS_PER_PARTITION; n++) {
                for (int partition = 0; partition < PARTITIONS; partition++) {
                    sent.add(producer.send(
                            new ProducerRecord<>(topic, partition, "k" + partition, new byte[] {(byte) n})));
                }
            }
            for (Future<RecordMetadata> acknowledgement : sent) {
                assertThat(acknowledgement.get(15, TimeUnit.SECONDS).hasOffset())
                        .as("round %d, topic %s", round, topic)
                        .isTrue();
            }
            assertThat(kafka.consume(topic, sent.size(), Duration.ofSeconds(15)))
                    .hasSize(sent.size());
            kafka.deleteTopic(topic);
        }
    }
}
