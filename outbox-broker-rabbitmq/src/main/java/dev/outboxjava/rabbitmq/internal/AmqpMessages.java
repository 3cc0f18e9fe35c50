package dev.outboxjava.rabbitmq.internal;

import com.rabbitmq.client.AMQP;
import dev.outboxjava.core.CloudEventAttributes;
import dev.outboxjava.core.OutboxEvent;
import java.nio.charset.StandardCharsets;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Maps an outbox event to AMQP 0-9-1 message properties: persistent delivery, {@code message_id} =
 * event id, content type, timestamp, type, and the CloudEvents attributes of
 * {@link CloudEventAttributes} as {@code cloudEvents:} headers (the prefix of the CloudEvents AMQP
 * binding; {@code datacontenttype} is the {@code content_type} property) after the event's own
 * headers. An event whose own headers use a reserved name is not encoded ({@link #encodingProblem}).
 */
final class AmqpMessages {

    /** Header prefix of the CloudEvents AMQP protocol binding. */
    public static final String CLOUD_EVENTS_PREFIX = "cloudEvents:";

    public static final String CE_ID = CLOUD_EVENTS_PREFIX + CloudEventAttributes.ID;
    public static final String CE_SOURCE = CLOUD_EVENTS_PREFIX + CloudEventAttributes.SOURCE;
    public static final String CE_TYPE = CLOUD_EVENTS_PREFIX + CloudEventAttributes.TYPE;
    public static final String CE_SPECVERSION = CLOUD_EVENTS_PREFIX + CloudEventAttributes.SPECVERSION;
    public static final String CE_TIME = CLOUD_EVENTS_PREFIX + CloudEventAttributes.TIME;
    public static final String CE_SUBJECT = CLOUD_EVENTS_PREFIX + CloudEventAttributes.SUBJECT;
    public static final String CE_DATASCHEMA = CLOUD_EVENTS_PREFIX + CloudEventAttributes.DATASCHEMA;
    /** The CloudEvents partitioning extension: carries the event key. */
    public static final String CE_PARTITIONKEY = CLOUD_EVENTS_PREFIX + CloudEventAttributes.PARTITIONKEY;

    public static final String SPEC_VERSION = CloudEventAttributes.SPEC_VERSION;
    /** AMQP delivery mode 2: the broker writes the message to disk on durable queues. */
    public static final int PERSISTENT = 2;

    /** AMQP 0-9-1 short strings (exchange, routing key, type, content type) hold at most 255 bytes. */
    public static final int MAX_SHORT_STRING_BYTES = 255;

    private AmqpMessages() {}

    /**
     * Why {@code event} cannot be written as an AMQP 0-9-1 message, if it cannot: it cannot be sent as
     * a CloudEvent at all ({@link CloudEventAttributes#problem}), or a name is over 255
     * UTF-8 bytes (the event builder counts characters, AMQP counts bytes). Such an event can never be
     * published, so it is failed before it reaches the channel, whose confirm numbering a failed
     * encoding would upset.
     */
    public static Optional<String> encodingProblem(OutboxEvent event) {
        return CloudEventAttributes.problem(event)
                .or(() -> tooLong("destination (exchange)", event.destination()))
                .or(() -> tooLong("routing key", event.routingKey()))
                .or(() -> tooLong("type", event.type()))
                .or(() -> tooLong("content type", event.contentType()));
    }

    private static Optional<String> tooLong(String what, String value) {
        if (value.length() <= MAX_SHORT_STRING_BYTES / 3) {
            return Optional.empty(); // a UTF-16 char takes at most 3 bytes in UTF-8 (a surrogate pair 4 for 2 chars)
        }
        int bytes = value.getBytes(StandardCharsets.UTF_8).length;
        return bytes <= MAX_SHORT_STRING_BYTES
                ? Optional.empty()
                : Optional.of("the event's " + what + " is " + bytes + " bytes in UTF-8, over the AMQP limit of "
                        + MAX_SHORT_STRING_BYTES + "; it cannot be published to RabbitMQ (not retryable)");
    }

    /** The properties and headers of {@code event}'s message. */
    public static AMQP.BasicProperties propertiesOf(OutboxEvent event) {
        String id = event.id().toString();
        // sized so that the event's headers and the CloudEvents attributes fit without a resize
        Map<String, Object> headers = new LinkedHashMap<>((event.headers().size() + 9) * 4 / 3 + 1);
        // No own header has a reserved name (encodingProblem), so none is dropped or overwritten here.
        headers.putAll(event.headers());
        CloudEventAttributes.of(event).forEach((name, value) -> {
            if (!name.equals(CloudEventAttributes.DATACONTENTTYPE)) {
                headers.put(CLOUD_EVENTS_PREFIX + name, value);
            }
        });
        return new AMQP.BasicProperties.Builder()
                .deliveryMode(PERSISTENT)
                .messageId(id)
                .contentType(event.contentType())
                .timestamp(Date.from(event.createdAt()))
                .type(event.type())
                .headers(headers)
                .build();
    }
}
