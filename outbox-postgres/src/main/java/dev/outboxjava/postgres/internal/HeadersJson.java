package dev.outboxjava.postgres.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.outboxjava.core.OutboxStoreException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jooq.JSONB;

/** Event headers to and from the {@code headers jsonb} column (a flat JSON object of strings). */
public final class HeadersJson {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final TypeReference<LinkedHashMap<String, String>> MAP = new TypeReference<>() {
    };
    private static final JSONB EMPTY = JSONB.valueOf("{}");

    private HeadersJson() {
    }

    public static JSONB write(Map<String, String> headers) {
        if (headers.isEmpty()) {
            return EMPTY;
        }
        try {
            return JSONB.valueOf(MAPPER.writeValueAsString(headers));
        } catch (JsonProcessingException e) {
            throw new OutboxStoreException("could not write event headers as JSON: " + e.getMessage(), e);
        }
    }

    public static Map<String, String> read(JSONB json) {
        if (json == null || json.data() == null || json.data().equals("{}")) {
            return Map.of();
        }
        try {
            return MAPPER.readValue(json.data(), MAP);
        } catch (JsonProcessingException e) {
            throw new OutboxStoreException("the headers column holds something other than a JSON object of "
                    + "strings (" + e.getOriginalMessage() + "); was the row written by another program?", e);
        }
    }
}
