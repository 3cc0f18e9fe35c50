package dev.outboxjava.core;

import dev.outboxjava.core.internal.UuidV7;
import java.time.Clock;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * One outbox row as the core sees it: what to publish, where, and how far delivery has come.
 *
 * <p>Create new events with {@link #builder()}; the builder validates everything a caller can get
 * wrong and throws {@link InvalidEventException} naming the field. Stores rebuild events they read
 * with {@link #restore()} (no size limits re-checked, delivery state supplied).
 *
 * <p>The payload is a defensive copy; {@link #payload()} returns a fresh copy on each call. Use
 * {@link #payloadSize()} when only the size is needed.
 *
 * @param id            unique id, a time-ordered UUID (v7); also the CloudEvents id and the consumer's dedup key
 * @param type          event type, e.g. {@code order.placed} (CloudEvents {@code type})
 * @param source        producer identity, e.g. {@code /orders-service} (CloudEvents {@code source})
 * @param key           aggregate / partition key; events with the same key can be ordered
 * @param destination   Kafka topic or RabbitMQ exchange
 * @param routingKey    RabbitMQ routing key (ignored by Kafka); empty when not used
 * @param contentType   media type of the payload, e.g. {@code application/json}
 * @param subject       what the event is about within its source, e.g. an order id (CloudEvents {@code subject})
 * @param dataSchema    absolute URI of the schema the payload adheres to (the CloudEvents attribute of that name)
 * @param payload       the serialized payload
 * @param headers       extra message headers, sent as-is
 * @param status        where the event is in its life
 * @param attempts      failed publish attempts so far
 * @param maxAttempts   the attempt budget: at {@code attempts == maxAttempts} the event is dead-lettered
 * @param lastError     why the last attempt failed
 * @param nextAttemptAt earliest time a relay may lease the event
 * @param createdAt     when the event was appended
 * @param leasedAt      when the current lease was taken
 * @param leaseId       the current lease; every mark must present it
 * @param sentAt        when the broker acknowledged the event
 * @param sequence      store-assigned, increasing in append order; 0 until stored
 * @param drawnId       whether the builder drew the id rather than being given one: a drawn id is new by
 *                      construction (a millisecond and 74 random bits), so an append-only store does not look
 *                      it up in the outbox before it appends the event; a given id is looked up
 */
public record OutboxEvent(
        UUID id,
        String type,
        String source,
        Optional<String> key,
        String destination,
        String routingKey,
        String contentType,
        Optional<String> subject,
        Optional<String> dataSchema,
        byte[] payload,
        Map<String, String> headers,
        EventStatus status,
        int attempts,
        int maxAttempts,
        Optional<String> lastError,
        Instant nextAttemptAt,
        Instant createdAt,
        Optional<Instant> leasedAt,
        Optional<UUID> leaseId,
        Optional<Instant> sentAt,
        long sequence,
        boolean drawnId) {

    /**
     * Longest type, source, destination, routing key and content type accepted, in characters; type,
     * destination, routing key and content type are also limited to 255 bytes in UTF-8 (AMQP short strings).
     */
    public static final int MAX_NAME_LENGTH = 255;
    /** Longest subject accepted. */
    public static final int MAX_SUBJECT_LENGTH = 1024;
    /** Longest key accepted. */
    public static final int MAX_KEY_LENGTH = 1024;
    /**
     * Room an accepted event can take on the wire beyond its payload: 64 KiB for the key (as record key
     * and partition-key attribute), the event's own headers (at most {@link #MAX_HEADERS_BYTES}), the
     * CloudEvents attributes and the broker's record framing. See {@link #maxEncodedBytes(int)}.
     */
    public static final int ENVELOPE_RESERVE_BYTES = 64 * 1024;
    /**
     * Default largest payload accepted by the builder: 960 KiB (983,040 bytes), so that the largest
     * event it accepts, envelope included, fits Kafka's default {@code max.request.size} of 1 MiB and
     * RabbitMQ's default message size limit.
     */
    public static final int DEFAULT_MAX_PAYLOAD_BYTES = 1024 * 1024 - ENVELOPE_RESERVE_BYTES;
    /**
     * Most bytes the event's own headers may take together: the UTF-8 bytes of every name and value,
     * plus {@value #HEADER_OVERHEAD_BYTES} per header for its framing on the wire.
     */
    public static final int MAX_HEADERS_BYTES = 32 * 1024;
    /** Framing bytes counted per header towards {@link #MAX_HEADERS_BYTES}. */
    public static final int HEADER_OVERHEAD_BYTES = 8;
    /** Default attempt budget per event. */
    public static final int DEFAULT_MAX_ATTEMPTS = 10;
    /** Default CloudEvents source when the caller sets none. */
    public static final String DEFAULT_SOURCE = "/outbox";
    /** Default content type. */
    public static final String DEFAULT_CONTENT_TYPE = "application/json";
    /** Longest header name: AMQP 0-9-1 field names stop at 128 characters. */
    public static final int MAX_HEADER_NAME_LENGTH = 128;
    /** Longest header value accepted. */
    public static final int MAX_HEADER_VALUE_LENGTH = 4096;

    public OutboxEvent {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(destination, "destination");
        Objects.requireNonNull(routingKey, "routingKey");
        Objects.requireNonNull(contentType, "contentType");
        Objects.requireNonNull(subject, "subject");
        Objects.requireNonNull(dataSchema, "dataSchema");
        Objects.requireNonNull(payload, "payload");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(lastError, "lastError");
        Objects.requireNonNull(nextAttemptAt, "nextAttemptAt");
        Objects.requireNonNull(createdAt, "createdAt");
        Objects.requireNonNull(leasedAt, "leasedAt");
        Objects.requireNonNull(leaseId, "leaseId");
        Objects.requireNonNull(sentAt, "sentAt");
        payload = payload.clone();
        headers = Map.copyOf(headers);
    }

    /**
     * The most bytes an event accepted with this payload limit can take as one broker record or message,
     * envelope included: {@code maxPayloadBytes + }{@link #ENVELOPE_RESERVE_BYTES}. A publisher whose
     * request or message size limit is below this for the payload limit its events are built with
     * would refuse the largest of them; publishers check it when they start.
     */
    public static long maxEncodedBytes(int maxPayloadBytes) {
        return (long) maxPayloadBytes + ENVELOPE_RESERVE_BYTES;
    }

    /** A copy of the payload. */
    @Override
    public byte[] payload() {
        return payload.clone();
    }

    /** Payload size in bytes, without copying. */
    public int payloadSize() {
        return payload.length;
    }

    /** The key, or {@code ""} for an event without one (for drivers that want a string). */
    public String keyOrEmpty() {
        return key.orElse("");
    }

    /** This event with its delivery state replaced; the identity and content stay. */
    public OutboxEvent withDelivery(
            EventStatus newStatus,
            int newAttempts,
            Optional<String> newLastError,
            Instant newNextAttemptAt,
            Optional<Instant> newLeasedAt,
            Optional<UUID> newLeaseId,
            Optional<Instant> newSentAt) {
        return new OutboxEvent(
                id,
                type,
                source,
                key,
                destination,
                routingKey,
                contentType,
                subject,
                dataSchema,
                payload,
                headers,
                newStatus,
                newAttempts,
                maxAttempts,
                newLastError,
                newNextAttemptAt,
                createdAt,
                newLeasedAt,
                newLeaseId,
                newSentAt,
                sequence,
                drawnId);
    }

    /** This event with its headers replaced (e.g. trace context added on append); nothing is re-validated. */
    public OutboxEvent withHeaders(Map<String, String> newHeaders) {
        return new OutboxEvent(
                id,
                type,
                source,
                key,
                destination,
                routingKey,
                contentType,
                subject,
                dataSchema,
                payload,
                newHeaders,
                status,
                attempts,
                maxAttempts,
                lastError,
                nextAttemptAt,
                createdAt,
                leasedAt,
                leaseId,
                sentAt,
                sequence,
                drawnId);
    }

    /**
     * This event with its payload and headers replaced (an operator's edit); nothing is re-validated. The copy
     * counts as one with a given id: appended, its id is looked up like any given one.
     */
    public OutboxEvent withContent(byte[] newPayload, Map<String, String> newHeaders) {
        return new OutboxEvent(
                id,
                type,
                source,
                key,
                destination,
                routingKey,
                contentType,
                subject,
                dataSchema,
                newPayload,
                newHeaders,
                status,
                attempts,
                maxAttempts,
                lastError,
                nextAttemptAt,
                createdAt,
                leasedAt,
                leaseId,
                sentAt,
                sequence,
                false);
    }

    /** This event with a store-assigned sequence. */
    public OutboxEvent withSequence(long newSequence) {
        return new OutboxEvent(
                id,
                type,
                source,
                key,
                destination,
                routingKey,
                contentType,
                subject,
                dataSchema,
                payload,
                headers,
                status,
                attempts,
                maxAttempts,
                lastError,
                nextAttemptAt,
                createdAt,
                leasedAt,
                leaseId,
                sentAt,
                newSequence,
                drawnId);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof OutboxEvent that
                && id.equals(that.id)
                && type.equals(that.type)
                && source.equals(that.source)
                && key.equals(that.key)
                && destination.equals(that.destination)
                && routingKey.equals(that.routingKey)
                && contentType.equals(that.contentType)
                && subject.equals(that.subject)
                && dataSchema.equals(that.dataSchema)
                && Arrays.equals(payload, that.payload)
                && headers.equals(that.headers)
                && status == that.status
                && attempts == that.attempts
                && maxAttempts == that.maxAttempts
                && lastError.equals(that.lastError)
                && nextAttemptAt.equals(that.nextAttemptAt)
                && createdAt.equals(that.createdAt)
                && leasedAt.equals(that.leasedAt)
                && leaseId.equals(that.leaseId)
                && sentAt.equals(that.sentAt)
                && sequence == that.sequence;
    }

    @Override
    public int hashCode() {
        return id.hashCode();
    }

    @Override
    public String toString() {
        return "OutboxEvent[id=" + id + ", type=" + type + ", key=" + key.orElse("-") + ", destination="
                + destination + ", status=" + status + ", attempts=" + attempts + "/" + maxAttempts
                + ", payload=" + payload.length + " bytes]";
    }

    /** Starts a new, pending event. */
    public static Builder builder() {
        return new Builder();
    }

    /** Rebuilds an event read from a store; the store is trusted, so only nulls are rejected. */
    public static Restorer restore() {
        return new Restorer();
    }

    /**
     * Builds a new pending event. Required: {@link #type}, {@link #destination} and {@link #payload}.
     * Every other field has a documented default. {@link #build()} validates and throws
     * {@link InvalidEventException} naming the first unusable field.
     */
    public static final class Builder {
        private UUID id;
        private String type;
        private String source = DEFAULT_SOURCE;
        private String key;
        private String destination;
        private String routingKey = "";
        private String contentType = DEFAULT_CONTENT_TYPE;
        private String subject;
        private String dataSchema;
        private byte[] payload;
        private Object value;
        private PayloadSerializer serializer;
        private final Map<String, String> headers = new LinkedHashMap<>();
        private int maxAttempts = DEFAULT_MAX_ATTEMPTS;
        private int maxPayloadBytes = DEFAULT_MAX_PAYLOAD_BYTES;
        private Clock clock = Clock.systemUTC();
        private Instant availableAt;

        private Builder() {}

        /** The event id. Default: a new time-ordered UUID (v7) from the builder's clock. */
        public Builder id(UUID value) {
            this.id = value;
            return this;
        }

        /** The event type, e.g. {@code order.placed}. Required, 1–255 characters and at most 255 UTF-8 bytes. */
        public Builder type(String value) {
            this.type = value;
            return this;
        }

        /** The producer identity (CloudEvents source). Default {@value #DEFAULT_SOURCE}; 1–255 characters. */
        public Builder source(String value) {
            this.source = value;
            return this;
        }

        /** The aggregate / partition key. Default: none; 1–1024 characters when set. */
        public Builder key(String value) {
            this.key = value;
            return this;
        }

        /** The Kafka topic or RabbitMQ exchange. Required, 1–255 characters and at most 255 UTF-8 bytes. */
        public Builder destination(String value) {
            this.destination = value;
            return this;
        }

        /** The RabbitMQ routing key. Default: empty; at most 255 characters and 255 UTF-8 bytes. */
        public Builder routingKey(String value) {
            this.routingKey = value;
            return this;
        }

        /** The payload's media type. Default {@value #DEFAULT_CONTENT_TYPE}; at most 255 characters and 255 UTF-8 bytes. */
        public Builder contentType(String value) {
            this.contentType = value;
            return this;
        }

        /**
         * What the event is about within its source, e.g. {@code order-42} (CloudEvents {@code subject}).
         * Default: none; 1-{@value #MAX_SUBJECT_LENGTH} non-blank characters when set.
         */
        public Builder subject(String value) {
            this.subject = value;
            return this;
        }

        /**
         * The schema the payload adheres to, an absolute URI such as
         * {@code https://example.com/schemas/order-placed-v1.json} (CloudEvents {@code dataschema}).
         * Default: none; at most {@value #MAX_NAME_LENGTH} characters when set.
         */
        public Builder dataSchema(String value) {
            this.dataSchema = value;
            return this;
        }

        /** The serialized payload, copied. Required; may be empty; at most {@link #maxPayloadBytes}. */
        public Builder payload(byte[] value) {
            this.payload = value == null ? null : value.clone();
            this.value = null;
            this.serializer = null;
            return this;
        }

        /**
         * The payload as an object of the application's, serialized by {@code serializer} when
         * {@link #build()} runs (with the event's {@link #destination}); the serializer's media type
         * becomes the {@link #contentType}. Replaces a payload set before, and vice versa.
         */
        public Builder payload(Object value, PayloadSerializer serializer) {
            if (value == null) {
                throw new InvalidEventException("payload", "is null; pass an object to serialize, or bytes");
            }
            this.value = value;
            this.serializer = Objects.requireNonNull(serializer, "serializer");
            this.payload = null;
            return this;
        }

        /**
         * Adds a header. Names: a letter, then letters, digits, '.', '_' or '-', at most 128 characters,
         * not one the CloudEvents envelope uses ({@link ReservedHeaders}); values: at most 4096 characters,
         * without NUL or lone surrogates.
         */
        public Builder header(String name, String value) {
            if (name == null) {
                throw new InvalidEventException("headers", "a header name is null");
            }
            headers.put(name, value);
            return this;
        }

        /** Adds every entry of {@code values} as a header; see {@link #header(String, String)}. */
        public Builder headers(Map<String, String> values) {
            if (values == null) {
                throw new InvalidEventException("headers", "is null; pass Map.of() for no headers");
            }
            values.forEach(this::header);
            return this;
        }

        /** The attempt budget for this event. Default {@value #DEFAULT_MAX_ATTEMPTS}; at least 1. */
        public Builder maxAttempts(int value) {
            this.maxAttempts = value;
            return this;
        }

        /**
         * Largest payload accepted. Default {@value #DEFAULT_MAX_PAYLOAD_BYTES} bytes (960 KiB), which fits the
         * brokers' default limits with the envelope. When you raise it, give the publisher the same value
         * (e.g. {@code KafkaPublisherConfig.Builder.maxPayloadBytes}) and raise the broker's limits to
         * {@link #maxEncodedBytes(int)}; the publisher refuses to start otherwise.
         */
        public Builder maxPayloadBytes(int value) {
            this.maxPayloadBytes = value;
            return this;
        }

        /** The clock for the id and the creation time. Default: {@link Clock#systemUTC()}. */
        public Builder clock(Clock value) {
            this.clock = Objects.requireNonNull(value, "clock");
            return this;
        }

        /**
         * Do not publish before this time (a delayed event). Default: at once (the creation time).
         * Must lie in the years 1 to 9999 UTC, the range PostgreSQL and the brokers' time formats hold.
         */
        public Builder availableAt(Instant value) {
            this.availableAt = value;
            return this;
        }

        /**
         * Validates and creates the pending event.
         *
         * @throws InvalidEventException naming the field when a value is missing or unusable
         */
        public OutboxEvent build() {
            requireName("type", type, MAX_NAME_LENGTH);
            requireName("source", source, MAX_NAME_LENGTH);
            requireName("destination", destination, MAX_NAME_LENGTH);
            if (value != null) {
                serialize();
            }
            if (routingKey == null || routingKey.length() > MAX_NAME_LENGTH) {
                throw new InvalidEventException(
                        "routingKey", "must be at most " + MAX_NAME_LENGTH + " characters (use \"\" for none)");
            }
            if (key != null && (key.isBlank() || key.length() > MAX_KEY_LENGTH)) {
                throw new InvalidEventException(
                        "key",
                        "must be 1-" + MAX_KEY_LENGTH
                                + " non-blank characters when set (leave it unset for an unordered event)");
            }
            requireName("contentType", contentType, MAX_NAME_LENGTH);
            if (subject != null) {
                requireName("subject", subject, MAX_SUBJECT_LENGTH);
            }
            if (dataSchema != null) {
                requireName("dataSchema", dataSchema, MAX_NAME_LENGTH);
            }
            if (maxPayloadBytes < 0) {
                throw new InvalidEventException("maxPayloadBytes", "must not be negative, was " + maxPayloadBytes);
            }
            if (payload == null) {
                throw new InvalidEventException("payload", "is required (use an empty array for none)");
            }
            if (payload.length > maxPayloadBytes) {
                throw new InvalidEventException(
                        "payload",
                        "is " + payload.length + " bytes, over the maximum of " + maxPayloadBytes
                                + " (raise maxPayloadBytes, or store large data elsewhere and send a reference)");
            }
            if (maxAttempts < 1) {
                throw new InvalidEventException("maxAttempts", "must be at least 1, was " + maxAttempts);
            }
            headers.forEach(EventHeaders::check);
            if (availableAt != null) {
                StorableInstant.require("availableAt", availableAt);
            }
            Instant now = clock.instant();
            UUID eventId = id != null ? id : UuidV7.next(clock);
            OutboxEvent event = new OutboxEvent(
                    eventId,
                    type,
                    source,
                    Optional.ofNullable(key),
                    destination,
                    routingKey,
                    contentType,
                    Optional.ofNullable(subject),
                    Optional.ofNullable(dataSchema),
                    payload,
                    headers,
                    EventStatus.PENDING,
                    0,
                    maxAttempts,
                    Optional.empty(),
                    availableAt != null ? availableAt : now,
                    now,
                    Optional.empty(),
                    Optional.empty(),
                    Optional.empty(),
                    0L,
                    id == null);
            EventContent.check(event);
            return event;
        }

        private void serialize() {
            SerializedPayload serialized;
            try {
                serialized = serializer.serialize(destination, value);
            } catch (RuntimeException e) {
                InvalidEventException invalid = new InvalidEventException(
                        "payload",
                        "the " + value.getClass().getName() + " could not be serialized by "
                                + serializer.getClass().getName() + ": " + e.getMessage());
                invalid.initCause(e);
                throw invalid;
            }
            if (serialized == null) {
                throw new InvalidEventException(
                        "payload",
                        serializer.getClass().getName() + " returned no payload for a "
                                + value.getClass().getName());
            }
            payload = serialized.bytes();
            contentType = serialized.contentType();
        }

        private static void requireName(String field, String value, int maxLength) {
            if (value == null || value.isBlank()) {
                throw new InvalidEventException(field, "is required and must not be blank");
            }
            if (value.length() > maxLength) {
                throw new InvalidEventException(
                        field, "is " + value.length() + " characters, over the maximum of " + maxLength);
            }
        }
    }

    /** Rebuilds a stored event field by field; see {@link #restore()}. */
    public static final class Restorer {
        private UUID id;
        private String type;
        private String source = DEFAULT_SOURCE;
        private Optional<String> key = Optional.empty();
        private String destination;
        private String routingKey = "";
        private String contentType = DEFAULT_CONTENT_TYPE;
        private Optional<String> subject = Optional.empty();
        private Optional<String> dataSchema = Optional.empty();
        private byte[] payload = new byte[0];
        private Map<String, String> headers = Map.of();
        private EventStatus status = EventStatus.PENDING;
        private int attempts;
        private int maxAttempts = DEFAULT_MAX_ATTEMPTS;
        private Optional<String> lastError = Optional.empty();
        private Instant nextAttemptAt;
        private Instant createdAt;
        private Optional<Instant> leasedAt = Optional.empty();
        private Optional<UUID> leaseId = Optional.empty();
        private Optional<Instant> sentAt = Optional.empty();
        private long sequence;

        private Restorer() {}

        public Restorer id(UUID v) {
            this.id = v;
            return this;
        }

        public Restorer type(String v) {
            this.type = v;
            return this;
        }

        public Restorer source(String v) {
            this.source = v;
            return this;
        }

        public Restorer key(Optional<String> v) {
            this.key = v;
            return this;
        }

        public Restorer destination(String v) {
            this.destination = v;
            return this;
        }

        public Restorer routingKey(String v) {
            this.routingKey = v;
            return this;
        }

        public Restorer contentType(String v) {
            this.contentType = v;
            return this;
        }

        public Restorer subject(Optional<String> v) {
            this.subject = v;
            return this;
        }

        public Restorer dataSchema(Optional<String> v) {
            this.dataSchema = v;
            return this;
        }

        public Restorer payload(byte[] v) {
            this.payload = v;
            return this;
        }

        public Restorer headers(Map<String, String> v) {
            this.headers = v;
            return this;
        }

        public Restorer status(EventStatus v) {
            this.status = v;
            return this;
        }

        public Restorer attempts(int v) {
            this.attempts = v;
            return this;
        }

        public Restorer maxAttempts(int v) {
            this.maxAttempts = v;
            return this;
        }

        public Restorer lastError(Optional<String> v) {
            this.lastError = v;
            return this;
        }

        public Restorer nextAttemptAt(Instant v) {
            this.nextAttemptAt = v;
            return this;
        }

        public Restorer createdAt(Instant v) {
            this.createdAt = v;
            return this;
        }

        public Restorer leasedAt(Optional<Instant> v) {
            this.leasedAt = v;
            return this;
        }

        public Restorer leaseId(Optional<UUID> v) {
            this.leaseId = v;
            return this;
        }

        public Restorer sentAt(Optional<Instant> v) {
            this.sentAt = v;
            return this;
        }

        public Restorer sequence(long v) {
            this.sequence = v;
            return this;
        }

        /** Creates the event; only missing required fields are rejected. */
        public OutboxEvent build() {
            return new OutboxEvent(
                    id,
                    type,
                    source,
                    key,
                    destination,
                    routingKey,
                    contentType,
                    subject,
                    dataSchema,
                    payload,
                    headers,
                    status,
                    attempts,
                    maxAttempts,
                    lastError,
                    nextAttemptAt,
                    createdAt,
                    leasedAt,
                    leaseId,
                    sentAt,
                    sequence,
                    false);
        }
    }
}
