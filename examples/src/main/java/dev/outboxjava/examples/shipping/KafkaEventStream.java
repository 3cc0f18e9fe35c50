package dev.outboxjava.examples.shipping;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads events from a Kafka topic in CloudEvents binary mode: the id in header {@code ce_id}, the
 * type in {@code ce_type}, the key as the record key. Offsets are committed only by
 * {@link #acknowledge()}, after the handler committed its transaction.
 */
public final class KafkaEventStream implements EventStream {

    private static final Logger log = LoggerFactory.getLogger(KafkaEventStream.class);

    private final KafkaConsumer<String, byte[]> consumer;

    /**
     * @param bootstrapServers the cluster
     * @param topic            the topic to read
     * @param groupId          the consumer group; a new group starts at the earliest offset
     */
    public KafkaEventStream(String bootstrapServers, String topic, String groupId) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "1000");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        this.consumer = new KafkaConsumer<>(props);
        consumer.subscribe(List.of(topic));
    }

    @Override
    public List<ReceivedEvent> poll(Duration timeout) {
        List<ReceivedEvent> events = new ArrayList<>();
        for (ConsumerRecord<String, byte[]> record : consumer.poll(timeout)) {
            Optional<String> id = header(record, "ce_id");
            if (id.isEmpty()) {
                log.warn(
                        "skipping record {}-{}@{} without a ce_id header: not an outbox event",
                        record.topic(),
                        record.partition(),
                        record.offset());
                continue;
            }
            events.add(new ReceivedEvent(
                    UUID.fromString(id.get()),
                    header(record, "ce_type").orElse(""),
                    Optional.ofNullable(record.key()),
                    record.value() == null ? new byte[0] : record.value()));
        }
        return events;
    }

    @Override
    public void acknowledge() {
        consumer.commitSync();
    }

    @Override
    public void redeliver() {
        Set<TopicPartition> assigned = consumer.assignment();
        Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(assigned);
        for (TopicPartition partition : assigned) {
            OffsetAndMetadata offset = committed.get(partition);
            if (offset != null) {
                consumer.seek(partition, offset);
            } else {
                consumer.seekToBeginning(List.of(partition));
            }
        }
    }

    @Override
    public void close() {
        consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
    }

    private static Optional<String> header(ConsumerRecord<?, ?> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null || header.value() == null
                ? Optional.empty()
                : Optional.of(new String(header.value(), StandardCharsets.UTF_8));
    }
}
