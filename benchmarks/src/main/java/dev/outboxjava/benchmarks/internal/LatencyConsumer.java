package dev.outboxjava.benchmarks.internal;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * A Kafka consumer on its own thread that notes when each event (by its {@code ce_id}) arrived.
 * It starts at the end of every partition.
 *
 * <p>It fetches as a consumer does by default: {@code fetch.min.bytes} 1 and {@code fetch.max.wait.ms}
 * 500. The broker answers such a fetch as soon as a record is appended to one of its partitions (the
 * wait only bounds a fetch that finds nothing), so the wait adds no latency. A short wait would add
 * none either, but would have the broker answer hundreds of empty fetches a second whenever the
 * relay is idle: CPU taken from the system being measured on a 2-core machine.
 */
public final class LatencyConsumer implements AutoCloseable {

    private final KafkaConsumer<String, byte[]> consumer;
    private final Map<UUID, Long> received = new ConcurrentHashMap<>();
    private final Thread thread;
    private volatile boolean stop;

    public LatencyConsumer(String bootstrapServers, String topic, int partitions) {
        consumer = new KafkaConsumer<>(
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        bootstrapServers,
                        ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG,
                        500,
                        ConsumerConfig.FETCH_MIN_BYTES_CONFIG,
                        1,
                        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                        false),
                new StringDeserializer(),
                new ByteArrayDeserializer());
        List<TopicPartition> assigned = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            assigned.add(new TopicPartition(topic, p));
        }
        consumer.assign(assigned);
        consumer.seekToEnd(assigned);
        assigned.forEach(consumer::position);
        thread = new Thread(this::run, "bench-consumer-" + topic);
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        while (!stop) {
            for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(50))) {
                long now = System.nanoTime();
                Header id = record.headers().lastHeader("ce_id");
                if (id != null) {
                    received.putIfAbsent(UUID.fromString(new String(id.value(), StandardCharsets.UTF_8)), now);
                }
            }
        }
        consumer.close();
    }

    /** Receive times (System.nanoTime) by event id. */
    public Map<UUID, Long> received() {
        return received;
    }

    @Override
    public void close() {
        stop = true;
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
