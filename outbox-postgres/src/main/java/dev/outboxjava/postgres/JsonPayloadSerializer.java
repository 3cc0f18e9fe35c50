package dev.outboxjava.postgres;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.PayloadSerializer;
import dev.outboxjava.core.SerializedPayload;
import java.io.UncheckedIOException;
import java.util.Objects;

/**
 * Serializes event objects to JSON ({@value OutboxEvent#DEFAULT_CONTENT_TYPE}) with Jackson, the
 * {@link OutboxWriter}'s default {@link PayloadSerializer}. {@link #ofDefaults()} uses a mapper with
 * every Jackson module on the classpath registered (e.g. {@code jackson-datatype-jsr310} for
 * {@code java.time}) and dates as ISO-8601 text; {@link #of(ObjectMapper)} uses yours, so that the events
 * look like the rest of the application's JSON. Thread-safe.
 */
public final class JsonPayloadSerializer implements PayloadSerializer {

    private final ObjectMapper mapper;

    private JsonPayloadSerializer(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    /** JSON by a mapper with the classpath's Jackson modules and ISO-8601 dates; one shared instance. */
    public static JsonPayloadSerializer ofDefaults() {
        return Defaults.INSTANCE;
    }

    /** Built at first use: looking the modules up scans the classpath. */
    private static final class Defaults {
        static final JsonPayloadSerializer INSTANCE = new JsonPayloadSerializer(
                new ObjectMapper().findAndRegisterModules().disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS));
    }

    /** JSON by the application's own mapper. */
    public static JsonPayloadSerializer of(ObjectMapper mapper) {
        return new JsonPayloadSerializer(Objects.requireNonNull(mapper, "mapper"));
    }

    @Override
    public SerializedPayload serialize(String destination, Object value) {
        try {
            return new SerializedPayload(mapper.writeValueAsBytes(value), OutboxEvent.DEFAULT_CONTENT_TYPE);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
