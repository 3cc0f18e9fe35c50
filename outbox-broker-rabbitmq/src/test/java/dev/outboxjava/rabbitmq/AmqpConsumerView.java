package dev.outboxjava.rabbitmq;

import com.rabbitmq.client.Delivery;
import dev.outboxjava.testkit.contract.ReceivedMessage;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What a plain AMQP consumer (no library of ours) reads from a message: the standard properties and
 * the {@code cloudEvents:} headers. Proof that the envelope is self-describing.
 */
final class AmqpConsumerView {

    private AmqpConsumerView() {}

    static ReceivedMessage read(Delivery delivery) {
        Map<String, Object> raw = delivery.getProperties().getHeaders() != null
                ? delivery.getProperties().getHeaders()
                : Map.of();
        Map<String, String> own = new HashMap<>();
        Map<String, String> attributes = new HashMap<>();
        raw.forEach((name, value) -> {
            if (!name.startsWith("cloudEvents:")) {
                own.put(name, String.valueOf(value));
            } else {
                attributes.put(name.substring("cloudEvents:".length()), String.valueOf(value));
            }
        });
        if (delivery.getProperties().getContentType() != null) {
            attributes.put("datacontenttype", delivery.getProperties().getContentType());
        }
        return new ReceivedMessage(
                delivery.getProperties().getMessageId(),
                header(raw, "cloudEvents:type"),
                header(raw, "cloudEvents:source"),
                Optional.ofNullable(raw.get("cloudEvents:partitionkey")).map(String::valueOf),
                delivery.getProperties().getContentType(),
                own,
                delivery.getBody(),
                attributes);
    }

    /** AMQP strings arrive as the client's LongString; every header we send is a string. */
    static String header(Map<String, Object> headers, String name) {
        Object value = headers.get(name);
        return value == null ? null : value.toString();
    }
}
