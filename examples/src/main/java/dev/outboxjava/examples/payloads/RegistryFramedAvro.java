package dev.outboxjava.examples.payloads;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.PayloadSerializer;
import dev.outboxjava.core.SerializedPayload;
import dev.outboxjava.examples.orders.OrderEvents;
import dev.outboxjava.examples.orders.OrderPlaced;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.Objects;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;

/**
 * Recipe: an Avro payload in a schema registry's wire format, serialized when the event is appended.
 * The outbox stores and publishes payload bytes unchanged, so a consumer's registry-aware
 * deserializer reads exactly what a registry-aware serializer would have produced.
 *
 * <p>The wire format of Confluent's Schema Registry (also read by Apicurio in its Confluent
 * compatibility mode): one magic byte {@code 0}, the schema id as a 4-byte big-endian integer, then
 * the record in Avro binary encoding. The schema id is what registering the schema under the
 * topic's subject returned; with the registry's serializer on the class path,
 * {@code serializer.serialize(topic, record)} gives these same bytes and can replace {@link #frame}.
 * The Avro encoding itself is Apache Avro's.
 */
public final class RegistryFramedAvro {

    /** The first byte of every payload in the wire format. */
    public static final byte MAGIC_BYTE = 0;
    /** The content type the events carry ({@code datacontenttype}), so consumers know not to read JSON. */
    public static final String CONTENT_TYPE = "application/avro";

    /** The {@code order.placed} record; times as Avro's {@code timestamp-millis}. */
    public static final Schema ORDER_PLACED = new Schema.Parser().parse("""
            {"type": "record", "name": "OrderPlaced", "namespace": "dev.outboxjava.examples.orders",
             "fields": [
               {"name": "orderId", "type": {"type": "string", "logicalType": "uuid"}},
               {"name": "customerId", "type": "string"},
               {"name": "sku", "type": "string"},
               {"name": "quantity", "type": "int"},
               {"name": "totalCents", "type": "long"},
               {"name": "placedAt", "type": {"type": "long", "logicalType": "timestamp-millis"}},
               {"name": "note", "type": ["null", "bytes"], "default": null}
             ]}""");

    private RegistryFramedAvro() {}

    /**
     * The {@code order.placed} event with its payload in the registry's wire format.
     *
     * @param note     opaque bytes the order carries (a gift message's signature, say), or null
     * @param schemaId the id the registry gave {@link #ORDER_PLACED} under the destination's subject
     */
    public static OutboxEvent placed(String destination, OrderPlaced order, byte[] note, int schemaId) {
        // tag::registry-payload[]
        OutboxEvent event = OutboxEvent.builder()
                .type(OrderEvents.ORDER_PLACED)
                .source(OrderEvents.SOURCE)
                .key(order.orderId().toString())
                .destination(destination)
                .routingKey(OrderEvents.ORDER_PLACED)
                .contentType(CONTENT_TYPE)
                .payload(frame(schemaId, toAvro(order, note))) // serialized now; published byte for byte
                .build();
        // end::registry-payload[]
        return event;
    }

    /**
     * The same payload as a {@link PayloadSerializer}, for {@code OutboxEvent.Builder.payload(order,
     * serializer)}, {@code OutboxWriter.create(config, serializer)} or a Spring application's
     * {@code PayloadSerializer} bean: the destination is the topic whose subject the schema id belongs to.
     */
    public static PayloadSerializer serializer(int schemaId) {
        // tag::registry-serializer[]
        PayloadSerializer avro = (destination, value) ->
                new SerializedPayload(frame(schemaId, toAvro((OrderPlaced) value, null)), CONTENT_TYPE);
        // end::registry-serializer[]
        return avro;
    }

    /** The order as an Avro record of {@link #ORDER_PLACED}; {@code note} may be null. */
    public static GenericRecord toAvro(OrderPlaced order, byte[] note) {
        GenericRecord record = new GenericData.Record(ORDER_PLACED);
        record.put("orderId", order.orderId().toString());
        record.put("customerId", order.customerId());
        record.put("sku", order.sku());
        record.put("quantity", order.quantity());
        record.put("totalCents", order.totalCents());
        record.put("placedAt", order.placedAt().toEpochMilli());
        record.put("note", note == null ? null : ByteBuffer.wrap(note));
        return record;
    }

    /** Magic byte, 4-byte big-endian schema id, Avro binary encoding of {@code record}. */
    public static byte[] frame(int schemaId, GenericRecord record) {
        Objects.requireNonNull(record, "record");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        bytes.write(MAGIC_BYTE);
        bytes.writeBytes(ByteBuffer.allocate(Integer.BYTES).putInt(schemaId).array());
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(bytes, null);
        try {
            new GenericDatumWriter<GenericRecord>(record.getSchema()).write(record, encoder);
            encoder.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /**
     * The schema id of a framed payload: what a consumer looks up in the registry to find the writer's schema.
     *
     * @throws IllegalArgumentException when the payload is not in the wire format
     */
    public static int schemaId(byte[] payload) {
        if (payload.length < 1 + Integer.BYTES || payload[0] != MAGIC_BYTE) {
            throw new IllegalArgumentException("not a schema-registry payload: it must start with the magic byte 0 "
                    + "and a 4-byte schema id, and has " + payload.length + " bytes"
                    + (payload.length > 0 ? " starting with " + payload[0] : ""));
        }
        return ByteBuffer.wrap(payload, 1, Integer.BYTES).getInt();
    }

    /** Reads a framed payload written with {@code writerSchema} (the schema its id names). */
    public static GenericRecord read(byte[] payload, Schema writerSchema) {
        schemaId(payload);
        int offset = 1 + Integer.BYTES;
        BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(payload, offset, payload.length - offset, null);
        try {
            return new GenericDatumReader<GenericRecord>(writerSchema).read(null, decoder);
        } catch (IOException e) {
            throw new IllegalArgumentException(
                    "the payload is not a " + writerSchema.getFullName() + " record: " + e.getMessage(), e);
        }
    }
}
