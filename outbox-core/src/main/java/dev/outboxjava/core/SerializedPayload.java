package dev.outboxjava.core;

import java.util.Arrays;
import java.util.Objects;

/**
 * What a {@link PayloadSerializer} produced: the payload's bytes and their media type, e.g.
 * {@code application/json} (the event's {@code contentType}, sent as the CloudEvents
 * {@code datacontenttype}).
 *
 * @param bytes       the serialized payload; copied in and out
 * @param contentType the media type of the bytes, not blank
 */
public record SerializedPayload(byte[] bytes, String contentType) {

    public SerializedPayload {
        Objects.requireNonNull(bytes, "bytes");
        Objects.requireNonNull(contentType, "contentType");
        if (contentType.isBlank()) {
            throw new IllegalArgumentException("contentType must not be blank");
        }
        bytes = bytes.clone();
    }

    /** A copy of the payload's bytes. */
    @Override
    public byte[] bytes() {
        return bytes.clone();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof SerializedPayload that
                && Arrays.equals(bytes, that.bytes)
                && contentType.equals(that.contentType);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(bytes) + contentType.hashCode();
    }

    @Override
    public String toString() {
        return "SerializedPayload[" + bytes.length + " bytes, " + contentType + "]";
    }
}
