package dev.outboxjava.testkit;

import com.rabbitmq.client.Delivery;
import dev.outboxjava.testkit.contract.ReceivedMessage;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * Reads a message a test consumer took from a broker back into a {@link ReceivedMessage}, the way
 * the outbox publishers write it (CloudEvents binary mode), so the broker-side assertions of
 * {@link OutboxAssertions#awaitReceived} work on what really arrived:
 *
 * <pre>{@code
 * List<ReceivedMessage> arrived = rabbit.receive(orders, 1, Duration.ofSeconds(10)).stream()
 *         .map(BrokerMessages::fromAmqp).toList();
 * }</pre>
 *
 * Only standard CloudEvents attributes are read, so this is also what any plain consumer sees; all of
 * them are in {@link ReceivedMessage#attributes()}, by attribute name.
 */
public final class BrokerMessages {

    private static final String AMQP_PREFIX = "cloudEvents:";
    private static final String KAFKA_PREFIX = "ce_";

    private BrokerMessages() {}

    /**
     * An AMQP delivery: id from {@code message_id} (else the {@code cloudEvents:id} header), type, source
     * and key from the {@code cloudEvents:type}, {@code cloudEvents:source} and
     * {@code cloudEvents:partitionkey} headers, the content type property, every other header as the
     * event's own, and the body. Missing attributes read as empty strings.
     */
    public static ReceivedMessage fromAmqp(Delivery delivery) {
        Map<String, Object> raw = delivery.getProperties().getHeaders() != null
                ? delivery.getProperties().getHeaders()
                : Map.of();
        Map<String, String> own = new LinkedHashMap<>();
        Map<String, String> attributes = new LinkedHashMap<>();
        raw.forEach((name, value) -> {
            if (value == null) {
                return;
            }
            if (name.startsWith(AMQP_PREFIX)) {
                attributes.put(name.substring(AMQP_PREFIX.length()), value.toString());
            } else {
                own.put(name, value.toString()); // AMQP strings arrive as the client's LongString
            }
        });
        if (delivery.getProperties().getContentType() != null) {
            attributes.put("datacontenttype", delivery.getProperties().getContentType());
        }
        String id = Optional.ofNullable(delivery.getProperties().getMessageId())
                .orElseGet(() -> text(raw.get(AMQP_PREFIX + "id")));
        return new ReceivedMessage(
                id,
                text(raw.get(AMQP_PREFIX + "type")),
                text(raw.get(AMQP_PREFIX + "source")),
                Optional.ofNullable(raw.get(AMQP_PREFIX + "partitionkey")).map(Object::toString),
                Optional.ofNullable(delivery.getProperties().getContentType()).orElse(""),
                own,
                body(delivery.getBody()),
                attributes);
    }

    /**
     * A Kafka record: id, type and source from the {@code ce_id}, {@code ce_type} and {@code ce_source}
     * headers, the key from {@code ce_partitionkey} (else the record key), the {@code content-type}
     * header, every other header as the event's own (UTF-8), and the value. Missing attributes read as
     * empty strings.
     */
    public static ReceivedMessage fromKafka(ConsumerRecord<?, byte[]> record) {
        Map<String, String> ce = new LinkedHashMap<>();
        Map<String, String> own = new LinkedHashMap<>();
        for (Header header : record.headers()) {
            String value = header.value() == null ? "" : new String(header.value(), StandardCharsets.UTF_8);
            String lower = header.key().toLowerCase(Locale.ROOT);
            if (lower.startsWith(KAFKA_PREFIX) || lower.equals("content-type")) {
                ce.put(lower, value);
            } else {
                own.put(header.key(), value);
            }
        }
        Optional<String> key = Optional.ofNullable(ce.get(KAFKA_PREFIX + "partitionkey"))
                .or(() -> Optional.ofNullable(record.key()).map(BrokerMessages::keyText));
        Map<String, String> attributes = new LinkedHashMap<>();
        ce.forEach((name, value) -> attributes.put(
                name.equals("content-type") ? "datacontenttype" : name.substring(KAFKA_PREFIX.length()), value));
        return new ReceivedMessage(
                ce.getOrDefault(KAFKA_PREFIX + "id", ""),
                ce.getOrDefault(KAFKA_PREFIX + "type", ""),
                ce.getOrDefault(KAFKA_PREFIX + "source", ""),
                key,
                ce.getOrDefault("content-type", ""),
                own,
                body(record.value()),
                attributes);
    }

    private static String keyText(Object key) {
        return key instanceof byte[] bytes ? new String(bytes, StandardCharsets.UTF_8) : key.toString();
    }

    private static String text(Object value) {
        return value == null ? "" : value.toString();
    }

    private static byte[] body(byte[] value) {
        return value == null ? new byte[0] : value;
    }
}
