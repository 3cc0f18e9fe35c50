package dev.outboxjava.benchmarks.internal;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.kafka.KafkaPublisherConfig;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.cloudevents.kafka.KafkaMessageFactory;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The broker's floor for a commit → consume measurement: each event sent straight to Kafka from the
 * thread that committed it, as the CloudEvent record the relay sends, by a producer with the relay's
 * producer properties ({@code acks=all}, idempotence, its batch and buffer sizes, the benchmark's
 * {@code --kafka-property} values) except {@code linger.ms}, which is 0: the relay does not linger either
 * (it flushes each batch once handed over), and a per-record sender's equivalent is not to wait.
 * Thread-safe, as its producer is.
 */
public final class FloorSender implements AutoCloseable {

    private final KafkaProducer<String, byte[]> producer;

    /** @param kafkaProperties the relay's producer properties over the library's defaults */
    public FloorSender(String bootstrapServers, Map<String, String> kafkaProperties) {
        KafkaPublisherConfig.Builder relay = KafkaPublisherConfig.builder().bootstrapServers(bootstrapServers);
        kafkaProperties.forEach(relay::property);
        Map<String, Object> properties = new HashMap<>(relay.build().producerProperties());
        properties.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        properties.put(ProducerConfig.CLIENT_ID_CONFIG, "outbox-benchmarks-floor");
        producer = new KafkaProducer<>(properties, new StringSerializer(), new ByteArraySerializer());
    }

    /** Hands the event to the producer (which sends it at once); does not wait for the acknowledgement. */
    public void send(OutboxEvent event) {
        CloudEventBuilder builder = CloudEventBuilder.v1()
                .withId(event.id().toString())
                .withType(event.type())
                .withSource(URI.create(event.source()))
                .withTime(OffsetDateTime.ofInstant(event.createdAt(), ZoneOffset.UTC))
                .withDataContentType(event.contentType())
                .withData(event.payload());
        event.key().ifPresent(key -> builder.withExtension("partitionkey", key));
        CloudEvent cloudEvent = builder.build();
        ProducerRecord<String, byte[]> record = KafkaMessageFactory.<String>createWriter(
                        event.destination(), null, null, event.key().orElse(null))
                .writeBinary(cloudEvent);
        event.headers().forEach((name, value) -> record.headers().add(name, value.getBytes(StandardCharsets.UTF_8)));
        producer.send(record);
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(10));
    }
}
