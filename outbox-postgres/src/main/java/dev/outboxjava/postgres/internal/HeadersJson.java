package dev.outboxjava.postgres.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.outboxjava.core.OutboxStoreException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Event headers to and from the {@code headers jsonb} column (a flat JSON object of strings), as the
 * column's text. Most events carry no headers: {@code {}} takes a fast path both ways, without Jackson.
 */
final class HeadersJson {

    /** The text of no headers; what PostgreSQL prints for an empty jsonb object, too. */
    public static final String EMPTY = "{}";

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final TypeReference<LinkedHashMap<String, String>> MAP = new TypeReference<>() {};

    private HeadersJson() {}

    public static String write(Map<String, String> headers) {
        if (headers.isEmpty()) {
            return EMPTY;
        }
        try {
            return MAPPER.writeValueAsString(headers);
        } catch (JsonProcessingException e) {
            throw new OutboxStoreException("could not write event headers as JSON: " + e.getMessage(), e);
        }
    }

    /** @param json the column's text; {@code null} (a row written by another program) means no headers */
    public static Map<String, String> read(String json) {
        if (json == null || json.equals(EMPTY)) {
            return Map.of();
        }
        try {
            return MAPPER.readValue(json, MAP);
        } catch (JsonProcessingException e) {
            throw new OutboxStoreException(
                    "the headers column holds something other than a JSON object of " + "strings ("
                            + e.getOriginalMessage() + "); was the row written by another program?",
                    e);
        }
    }
}
