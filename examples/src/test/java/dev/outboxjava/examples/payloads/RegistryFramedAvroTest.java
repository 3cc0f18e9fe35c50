package dev.outboxjava.examples.payloads;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxjava.examples.orders.OrderPlaced;
import java.time.Instant;
import java.util.Arrays;
import java.util.UUID;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;

class RegistryFramedAvroTest {

    private static final OrderPlaced ORDER = new OrderPlaced(
            UUID.fromString("0190f3c4-0000-7000-8000-000000000001"),
            "customer-1",
            "sku-1",
            2,
            4_999,
            Instant.parse("2026-11-25T10:00:00Z"));

    @Test
    void framesTheAvroBinaryEncodingBehindTheMagicByteAndTheBigEndianSchemaId() {
        byte[] payload = RegistryFramedAvro.frame(0x01020304, RegistryFramedAvro.toAvro(ORDER, null));

        assertThat(Arrays.copyOf(payload, 5)).containsExactly(0, 1, 2, 3, 4);
        // Avro binary: a string is its zig-zag varint length (36 -> 72) and its UTF-8 bytes
        assertThat(payload[5]).isEqualTo((byte) 72);
        assertThat(new String(payload, 6, 36, java.nio.charset.StandardCharsets.UTF_8))
                .isEqualTo(ORDER.orderId().toString());
        assertThat(RegistryFramedAvro.schemaId(payload)).isEqualTo(0x01020304);
    }

    @Test
    void readsBackWhatItFramed() {
        byte[] payload = RegistryFramedAvro.frame(7, RegistryFramedAvro.toAvro(ORDER, new byte[] {0, -1}));

        GenericRecord record = RegistryFramedAvro.read(payload, RegistryFramedAvro.ORDER_PLACED);

        assertThat(record.get("customerId").toString()).isEqualTo("customer-1");
        assertThat(record.get("totalCents")).isEqualTo(4_999L);
        assertThat(record.get("placedAt")).isEqualTo(ORDER.placedAt().toEpochMilli());
    }

    @Test
    void rejectsAPayloadThatIsNotInTheWireFormat() {
        assertThatThrownBy(() -> RegistryFramedAvro.schemaId("{\"json\":1}".getBytes()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("magic byte 0");
        assertThatThrownBy(() -> RegistryFramedAvro.schemaId(new byte[] {0, 1}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("has 2 bytes");
    }
}
