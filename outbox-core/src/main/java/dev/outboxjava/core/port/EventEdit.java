package dev.outboxjava.core.port;

import java.util.Map;
import java.util.Objects;

/**
 * An operator's correction of a dead letter before it is sent again.
 *
 * @param payload the new payload (bytes as they are to be sent)
 * @param headers the new headers, replacing all of the old ones
 */
public record EventEdit(byte[] payload, Map<String, String> headers) {

    public EventEdit {
        payload = Objects.requireNonNull(payload, "payload").clone();
        headers = Map.copyOf(headers);
    }

    /**
     * Checks the edit against the rules an appended event obeys: payload at most
     * {@link dev.outboxjava.core.OutboxEvent#DEFAULT_MAX_PAYLOAD_BYTES}, header names and values
     * accepted, headers within their size limit.
     *
     * @throws dev.outboxjava.core.InvalidEventException naming the field that breaks a rule
     */
    public void requireValid() {
        // the builder holds every content rule; the event it builds is thrown away
        dev.outboxjava.core.OutboxEvent.builder()
                .type("edit")
                .destination("edit")
                .payload(payload)
                .headers(headers)
                .build();
    }

    @Override
    public byte[] payload() {
        return payload.clone();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof EventEdit edit
                && java.util.Arrays.equals(payload, edit.payload)
                && headers.equals(edit.headers);
    }

    @Override
    public int hashCode() {
        return java.util.Arrays.hashCode(payload) * 31 + headers.hashCode();
    }

    @Override
    public String toString() {
        return "EventEdit[" + payload.length + " bytes, headers=" + headers.keySet() + "]";
    }
}
