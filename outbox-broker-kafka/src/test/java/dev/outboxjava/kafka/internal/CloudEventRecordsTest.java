package dev.outboxjava.kafka.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxjava.core.CloudEventAttributes;
import dev.outboxjava.core.OutboxEvent;
import io.cloudevents.CloudEvent;
import io.cloudevents.kafka.KafkaMessageFactory;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class CloudEventRecordsTest {

    private static final Instant CREATED = Instant.parse("2026-03-01T10:15:30.123Z");

    private static OutboxEvent.Builder event() {
        return OutboxEvent.builder()
                .type("order.placed")
                .source("/orders-service")
                .destination("orders")
                .contentType("application/json")
                .payload("{\"id\":7}".getBytes(StandardCharsets.UTF_8))
                .clock(Clock.fixed(CREATED, ZoneOffset.UTC));
    }

    private static String header(ProducerRecord<String, byte[]> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    @Test
    @DisplayName("topic, key, value and the CloudEvents binary-mode headers come from the event")
    void binaryMode() {
        OutboxEvent event = event().key("order-7").header("tenant", "acme").build();

        ProducerRecord<String, byte[]> record = CloudEventRecords.toRecord(event);

        assertThat(record.topic()).isEqualTo("orders");
        assertThat(record.key()).isEqualTo("order-7");
        assertThat(record.partition()).isNull();
        assertThat(record.value()).isEqualTo(event.payload());
        assertThat(header(record, "ce_id")).isEqualTo(event.id().toString());
        assertThat(header(record, "ce_type")).isEqualTo("order.placed");
        assertThat(header(record, "ce_source")).isEqualTo("/orders-service");
        assertThat(header(record, "ce_specversion")).isEqualTo("1.0");
        assertThat(OffsetDateTime.parse(header(record, "ce_time")).toInstant()).isEqualTo(CREATED);
        assertThat(header(record, "content-type")).isEqualTo("application/json");
        assertThat(header(record, "ce_partitionkey")).isEqualTo("order-7");
        assertThat(header(record, "tenant")).isEqualTo("acme");
    }

    @Test
    @DisplayName("the CloudEvents SDK reads the record back as the same event")
    void sdkReadsItBack() {
        OutboxEvent event = event().key("order-7").build();
        ProducerRecord<String, byte[]> record = CloudEventRecords.toRecord(event);

        CloudEvent read = KafkaMessageFactory.createReader(record.headers(), record.value())
                .toEvent();

        assertThat(read.getId()).isEqualTo(event.id().toString());
        assertThat(read.getType()).isEqualTo("order.placed");
        assertThat(read.getSource()).isEqualTo(URI.create("/orders-service"));
        assertThat(read.getTime()).isEqualTo(OffsetDateTime.ofInstant(CREATED, ZoneOffset.UTC));
        assertThat(read.getDataContentType()).isEqualTo("application/json");
        assertThat(read.getData().toBytes()).isEqualTo(event.payload());
    }

    @Test
    @DisplayName("an event without a key becomes a record without a key")
    void noKey() {
        ProducerRecord<String, byte[]> record = CloudEventRecords.toRecord(event().build());

        assertThat(record.key()).isNull();
        assertThat(record.headers().lastHeader("ce_partitionkey")).isNull();
    }

    @Test
    @DisplayName(
            "a stored event whose own header is named like an envelope header is refused, not sent with the header dropped")
    void envelopeHeaderRefused() {
        OutboxEvent stored = OutboxEvent.restore()
                .id(UUID.randomUUID())
                .type("t")
                .source("/s")
                .destination("d")
                .key(Optional.empty())
                .headers(Map.of("cloudEvents_type", "forged", "ok", "1"))
                .nextAttemptAt(CREATED)
                .createdAt(CREATED)
                .build();

        assertThatThrownBy(() -> CloudEventRecords.toRecord(stored))
                .isInstanceOf(UnpublishableEventException.class)
                .hasMessageContaining("'cloudEvents_type'")
                .hasMessageContaining("reserved");
    }

    @Test
    @DisplayName(
            "the ce_ headers are exactly the core's CloudEvents attributes of the event, content type as content-type")
    void headersAreTheCoreAttributes() {
        OutboxEvent event = OutboxEvent.restore()
                .id(UUID.randomUUID())
                .type("order.placed")
                .source("/orders")
                .destination("orders")
                .key(Optional.of("order-7"))
                .subject(Optional.of("order/7"))
                .dataSchema(Optional.of("https://schemas.example/order/1"))
                .contentType("application/json")
                .headers(Map.of("tenant", "acme"))
                .nextAttemptAt(CREATED)
                .createdAt(CREATED.plusNanos(120_000_000))
                .build();

        ProducerRecord<String, byte[]> record = CloudEventRecords.toRecord(event);

        Map<String, String> expected = new java.util.LinkedHashMap<>();
        CloudEventAttributes.of(event)
                .forEach((name, value) -> expected.put(
                        name.equals(CloudEventAttributes.DATACONTENTTYPE) ? "content-type" : "ce_" + name, value));
        expected.put("tenant", "acme");
        Map<String, String> written = new java.util.LinkedHashMap<>();
        record.headers()
                .forEach(h -> written.put(h.key(), new String(h.value(), java.nio.charset.StandardCharsets.UTF_8)));
        assertThat(written).containsExactlyInAnyOrderEntriesOf(expected);
    }

    @Test
    @DisplayName("a stored source that is not a URI reference cannot be published")
    void badSource() {
        OutboxEvent event = OutboxEvent.restore()
                .id(UUID.randomUUID())
                .type("t")
                .source("not a uri")
                .destination("d")
                .nextAttemptAt(CREATED)
                .createdAt(CREATED)
                .build();

        assertThatThrownBy(() -> CloudEventRecords.toRecord(event))
                .isInstanceOf(UnpublishableEventException.class)
                .hasMessageContaining("not a URI");
    }
}
