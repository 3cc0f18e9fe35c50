package dev.outboxjava.kafka.internal;

import dev.outboxjava.core.CloudEventAttributes;
import dev.outboxjava.core.OutboxEvent;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.cloudevents.kafka.KafkaMessageFactory;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Headers;

/**
 * Maps an outbox event to a Kafka record in CloudEvents binary content mode, through the
 * CloudEvents SDK's Kafka binding: topic = destination, record key = event key (none when absent),
 * value = payload, headers {@code ce_id}, {@code ce_type}, {@code ce_source}, {@code ce_time},
 * {@code ce_specversion}, {@code content-type}, {@code ce_partitionkey} when the event has a key
 * (the CloudEvents partitioning extension), {@code ce_subject} and {@code ce_dataschema} when the
 * event has them, then the event's own headers as UTF-8: the attributes of
 * {@link CloudEventAttributes}, with the Kafka binding's {@code ce_} prefix. An event that cannot be
 * sent as a CloudEvent is not published ({@link CloudEventAttributes#problem}).
 */
final class CloudEventRecords {

    /** The CloudEvents partitioning extension: the key the record is partitioned by. */
    public static final String PARTITION_KEY_EXTENSION = CloudEventAttributes.PARTITIONKEY;

    private CloudEventRecords() {}

    /**
     * The record for {@code event}.
     *
     * @throws UnpublishableEventException when the event cannot be expressed as a CloudEvent
     *                                     ({@link CloudEventAttributes#problem})
     */
    public static ProducerRecord<String, byte[]> toRecord(OutboxEvent event) {
        CloudEventAttributes.problem(event).ifPresent(problem -> {
            throw new UnpublishableEventException(problem);
        });
        CloudEventBuilder builder = CloudEventBuilder.v1()
                .withId(event.id().toString())
                .withType(event.type())
                .withSource(URI.create(event.source()))
                .withTime(OffsetDateTime.ofInstant(event.createdAt(), ZoneOffset.UTC))
                .withDataContentType(event.contentType())
                .withData(event.payload());
        event.key().ifPresent(key -> builder.withExtension(PARTITION_KEY_EXTENSION, key));
        event.subject().ifPresent(builder::withSubject);
        event.dataSchema().ifPresent(schema -> builder.withDataSchema(URI.create(schema)));
        CloudEvent cloudEvent = builder.build();
        ProducerRecord<String, byte[]> record = KafkaMessageFactory.<String>createWriter(
                        event.destination(), null, null, event.key().orElse(null))
                .writeBinary(cloudEvent);
        addOwnHeaders(record.headers(), event.headers());
        return record;
    }

    private static void addOwnHeaders(Headers headers, Map<String, String> own) {
        // no own header has a reserved name (checked first), so none collides with the envelope
        own.forEach((name, value) -> headers.add(name, value.getBytes(StandardCharsets.UTF_8)));
    }
}
