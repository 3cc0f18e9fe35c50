package dev.outboxjava.benchmarks.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.testkit.kafka.KafkaTopics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The benchmark's broker in a JVM of its own: it takes and serves records, reports its GC pauses, and
 * close() ends the process and its log.
 */
class KafkaBrokerProcessIT {

    @Test
    void aBrokerInItsOwnJvmServesRecordsAndCloseEndsItAndDeletesItsLog(@TempDir Path logParent) throws Exception {
        long started = System.nanoTime();
        KafkaBrokerProcess broker = KafkaBrokerProcess.start(logParent, Map.of());
        ProcessHandle child = ProcessHandle.of(broker.pid()).orElseThrow();
        try {
            assertThat(broker.pid()).isNotEqualTo(ProcessHandle.current().pid());
            String bootstrap = broker.bootstrapServers();
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
                KafkaTopics.createAndAwaitReady(admin, "own-jvm", 1, Duration.ofSeconds(30), bootstrap);
            }
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(
                    Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ProducerConfig.ACKS_CONFIG, "all"),
                    new StringSerializer(),
                    new StringSerializer())) {
                producer.send(new ProducerRecord<>("own-jvm", "key", "across processes"))
                        .get(30, TimeUnit.SECONDS);
            }
            assertThat(readOne(bootstrap))
                    .hasValueSatisfying(record -> assertThat(record.value()).isEqualTo("across processes"));
            assertThat(logParent).isNotEmptyDirectory();
            // a starting broker loads more classes than the first metaspace threshold allows: at least one pause
            assertThat(GcPauses.BROKER_JVM.between(started, System.nanoTime()).count())
                    .as("GC pauses the broker JVM reported")
                    .isPositive();
        } finally {
            broker.close();
        }

        assertThat(child.isAlive()).isFalse();
        try (Stream<Path> left = Files.list(logParent)) {
            assertThat(left).isEmpty();
        }
    }

    private static Optional<ConsumerRecord<String, String>> readOne(String bootstrap) {
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        bootstrap,
                        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                        false),
                new StringDeserializer(),
                new StringDeserializer())) {
            TopicPartition partition = new TopicPartition("own-jvm", 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    return Optional.of(record);
                }
            }
            return Optional.empty();
        }
    }
}
