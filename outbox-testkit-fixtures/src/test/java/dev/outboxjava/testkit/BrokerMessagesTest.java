package dev.outboxjava.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.LongString;
import com.rabbitmq.client.impl.LongStringHelper;
import dev.outboxjava.testkit.contract.ReceivedMessage;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("BrokerMessages")
class BrokerMessagesTest {

    private static final byte[] PAYLOAD = "{\"total\":12.5}".getBytes(StandardCharsets.UTF_8);

    @Test
    @DisplayName("reads an AMQP delivery in the CloudEvents AMQP binding, own headers apart from the envelope")
    void amqp() {
        Map<String, Object> headers = new LinkedHashMap<>();
        headers.put("tenant", LongStringHelper.asLongString("acme"));
        headers.put("cloudEvents:specversion", "1.0");
        headers.put("cloudEvents:id", "ignored-when-message-id-is-set");
        headers.put("cloudEvents:type", LongStringHelper.asLongString("order.placed"));
        headers.put("cloudEvents:source", "/orders");
        headers.put("cloudEvents:partitionkey", LongStringHelper.asLongString("order-7"));
        AMQP.BasicProperties properties = new AMQP.BasicProperties.Builder()
                .messageId("id-1")
                .contentType("application/json")
                .headers(headers)
                .build();

        ReceivedMessage message =
                BrokerMessages.fromAmqp(new Delivery(new Envelope(1, false, "orders", "rk"), properties, PAYLOAD));

        assertThat(message.id()).isEqualTo("id-1");
        assertThat(message.type()).isEqualTo("order.placed");
        assertThat(message.source()).isEqualTo("/orders");
        assertThat(message.key()).contains("order-7");
        assertThat(message.contentType()).isEqualTo("application/json");
        assertThat(message.headers()).containsExactly(Map.entry("tenant", "acme"));
        assertThat(message.payload()).isEqualTo(PAYLOAD);
        assertThat(message.attributes())
                .containsEntry("specversion", "1.0")
                .containsEntry("type", "order.placed")
                .containsEntry("partitionkey", "order-7")
                .containsEntry("datacontenttype", "application/json");
        assertThat(headers.get("tenant")).isInstanceOf(LongString.class);
    }

    @Test
    @DisplayName("reads a Kafka record in the CloudEvents Kafka binding, own headers apart from the envelope")
    void kafka() {
        ConsumerRecord<String, byte[]> record = new ConsumerRecord<>("orders", 0, 0L, "order-7", PAYLOAD);
        record.headers()
                .add("ce_id", bytes("id-2"))
                .add("ce_type", bytes("order.placed"))
                .add("ce_source", bytes("/orders"))
                .add("ce_specversion", bytes("1.0"))
                .add("content-type", bytes("application/json"))
                .add("tenant", bytes("acme"));

        ReceivedMessage message = BrokerMessages.fromKafka(record);

        assertThat(message.id()).isEqualTo("id-2");
        assertThat(message.type()).isEqualTo("order.placed");
        assertThat(message.source()).isEqualTo("/orders");
        assertThat(message.key())
                .as("the record key when there is no partitionkey")
                .contains("order-7");
        assertThat(message.contentType()).isEqualTo("application/json");
        assertThat(message.headers()).containsExactly(Map.entry("tenant", "acme"));
        assertThat(message.payload()).isEqualTo(PAYLOAD);
        assertThat(message.attributes())
                .containsOnly(
                        Map.entry("id", "id-2"),
                        Map.entry("type", "order.placed"),
                        Map.entry("source", "/orders"),
                        Map.entry("specversion", "1.0"),
                        Map.entry("datacontenttype", "application/json"));
    }

    @Test
    @DisplayName("reads a message that is not a CloudEvent with empty attributes instead of failing")
    void foreign() {
        ReceivedMessage amqp = BrokerMessages.fromAmqp(
                new Delivery(new Envelope(1, false, "x", "y"), new AMQP.BasicProperties(), null));
        ReceivedMessage kafka = BrokerMessages.fromKafka(new ConsumerRecord<String, byte[]>("t", 0, 0L, null, null));

        assertThat(amqp.id()).isEmpty();
        assertThat(amqp.key()).isEmpty();
        assertThat(kafka.type()).isEmpty();
        assertThat(kafka.payload()).isEmpty();
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
