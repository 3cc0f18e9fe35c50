package dev.outboxjava.kafka;

import dev.outboxjava.core.InvalidConfigurationException;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.kafka.internal.ProducerProperties;
import dev.outboxjava.kafka.internal.RecordSizeLimits;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * How a {@link KafkaPublisher} talks to Kafka: the Kafka producer properties, checked so that no
 * setting can lose or reorder events.
 *
 * <p>Build one with {@link #builder()}; only {@link Builder#bootstrapServers(String)} is required.
 * Any Kafka producer property may be passed with {@link Builder#property(String, Object)} (security,
 * SASL/SSL, client id, tuning); the library then applies its rules:
 *
 * <ul>
 *   <li><b>Forced</b>: {@code acks=all} and {@code enable.idempotence=true} (an event counts as
 *       published only once every in-sync replica has it, and producer retries never duplicate or
 *       reorder records within a partition); the key and value serializers are the library's own
 *       (string key, byte-array value).</li>
 *   <li><b>Refused</b> at {@link Builder#build()} with an {@link InvalidConfigurationException}
 *       naming the property: {@code acks} other than {@code all}/{@code -1};
 *       {@code enable.idempotence=false}; {@code retries} below 1;
 *       {@code max.in.flight.requests.per.connection} outside 1–{@value #MAX_IN_FLIGHT_LIMIT} (more
 *       could reorder records); {@code transactional.id} (the outbox does not use Kafka
 *       transactions); {@code key.serializer} / {@code value.serializer}; and any value Kafka itself
 *       would reject (wrong type, out of range).</li>
 *   <li><b>Defaults</b> (each can be overridden): {@code linger.ms}={@value #DEFAULT_LINGER_MS},
 *       {@code batch.size}={@value #DEFAULT_BATCH_SIZE_BYTES} bytes,
 *       {@code compression.type}={@value #DEFAULT_COMPRESSION_TYPE},
 *       {@code max.in.flight.requests.per.connection}={@value #MAX_IN_FLIGHT_LIMIT},
 *       {@code max.block.ms}={@value #DEFAULT_MAX_BLOCK_MS},
 *       {@code client.id}={@value #DEFAULT_CLIENT_ID}; everything else keeps Kafka's default
 *       (notably {@code retries}=MAX_INT, {@code delivery.timeout.ms}=120000,
 *       {@code max.request.size}=1048576).</li>
 * </ul>
 *
 * <p>{@code max.request.size} and {@code buffer.memory} must hold the largest event the outbox
 * accepts, {@link OutboxEvent#maxEncodedBytes(int)} of the payload limit the events are built with
 * ({@link Builder#maxPayloadBytes(int)}, default {@link OutboxEvent#DEFAULT_MAX_PAYLOAD_BYTES}, which
 * fits Kafka's defaults); {@link Builder#build()} refuses smaller values, naming the property.
 *
 * <p>{@code max.block.ms} bounds how long the producer waits for topic metadata or buffer space
 * while handing a record over. Keep it below the relay's publish timeout: then an unreachable
 * broker yields retryable failures within the publish timeout instead of a blocked relay. A batch
 * does not wait that long for the metadata of a topic that does not exist: it waits at most 2 s for
 * its topics' metadata, then asks the cluster about the topics still without it.
 */
public final class KafkaPublisherConfig {

    /**
     * Default {@code linger.ms}: 5, Kafka's own default since 4.0. With
     * {@link Builder#flushEachBatch(boolean) flushEachBatch} (the default) a batch does not wait for it:
     * the publisher flushes once the whole batch is handed over, so lingering only keeps the producer
     * from sending the batch's first records alone before the rest arrive. Without flushEachBatch it
     * adds up to 5 ms to the latency of events in small batches.
     */
    public static final int DEFAULT_LINGER_MS = 5;
    /**
     * Default {@code batch.size}: 256 KiB per partition batch (Kafka's own default is 16 KiB). The relay hands over whole batches and flushes them at once, so a partition's share of
     * a batch should fit one producer batch: a 1,000-event batch of 1 KB events spread over 6
     * partitions is about 170 KB per partition, three 64 KiB batches. Draining 200,000 events with
     * 256 KiB rather than 64 KiB (benchmark scenario 3, medians of three drains, same machine and hour),
     * the worker moved 33,200 rather than 25,000 events/s (keep-sent) and 39,000 rather than 32,600
     * (delete-on-publish), the Kafka client and the broker each spending ~1 µs less CPU
     * per event. Small batches are not held back by it (they are flushed, not lingered). The buffers
     * come from {@code buffer.memory} (32 MiB by default) and go back to its pool: a batch spread
     * over more than 128 partitions at once waits, up to {@code max.block.ms}, for the first
     * partitions' batches to be sent and free theirs — raise {@code buffer.memory} for that.
     */
    public static final int DEFAULT_BATCH_SIZE_BYTES = 256 * 1024;
    /**
     * Default {@code compression.type}: none, as in Kafka itself. In the benchmarks lz4 cost more than it
     * saved: the producer builds a new compressing stream, with two
     * 64 KiB buffers, for every partition batch, which under a steady trickle of small batches was a
     * quarter of the publisher's sending thread and a fifth of everything the JVM allocated, and the
     * broker decompresses each batch again to validate it. Without it the Kafka client spent 25–40 %
     * less CPU per event and drains ran up to 45 % faster than with lz4. Set {@code lz4} or {@code zstd} when the
     * network to the brokers, not the CPU, is what is scarce.
     */
    public static final String DEFAULT_COMPRESSION_TYPE = "none";
    /** Default {@code max.block.ms}: 10 s, well below the relay's default 30 s publish timeout. */
    public static final int DEFAULT_MAX_BLOCK_MS = 10_000;
    /** Default {@code client.id}. */
    public static final String DEFAULT_CLIENT_ID = "outbox-publisher";
    /** Largest {@code max.in.flight.requests.per.connection} that keeps idempotent ordering. */
    public static final int MAX_IN_FLIGHT_LIMIT = 5;
    /** Default time a {@link KafkaPublisher#checkHealth()} waits for the cluster to answer. */
    public static final Duration DEFAULT_HEALTH_CHECK_TIMEOUT = Duration.ofSeconds(5);
    /** Default time {@link KafkaPublisher#close()} lets records already handed over reach the broker. */
    public static final Duration DEFAULT_CLOSE_TIMEOUT = Duration.ofSeconds(10);

    private final Map<String, Object> producerProperties;
    private final Duration healthCheckTimeout;
    private final Duration closeTimeout;
    private final boolean flushEachBatch;
    private final int maxPayloadBytes;

    private KafkaPublisherConfig(
            Map<String, Object> producerProperties,
            Duration healthCheckTimeout,
            Duration closeTimeout,
            boolean flushEachBatch,
            int maxPayloadBytes) {
        this.producerProperties = producerProperties;
        this.healthCheckTimeout = healthCheckTimeout;
        this.closeTimeout = closeTimeout;
        this.flushEachBatch = flushEachBatch;
        this.maxPayloadBytes = maxPayloadBytes;
    }

    /** Starts a configuration; see the class comment for what is required, forced and refused. */
    public static Builder builder() {
        return new Builder();
    }

    /** The effective Kafka producer properties, forced values and defaults included; unmodifiable. */
    public Map<String, Object> producerProperties() {
        return producerProperties;
    }

    /** The bootstrap servers, as given. */
    public String bootstrapServers() {
        // Kafka takes a list as well as a comma-separated string (Spring Boot's KafkaProperties hands a list)
        Object servers = producerProperties.get(ProducerProperties.BOOTSTRAP_SERVERS);
        return servers instanceof java.util.Collection<?> list
                ? list.stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(","))
                : String.valueOf(servers);
    }

    /** The effective {@code max.block.ms}. */
    public Duration maxBlock() {
        return Duration.ofMillis(ProducerProperties.maxBlockMillis(producerProperties));
    }

    /** How long {@link KafkaPublisher#checkHealth()} waits for the cluster to answer. */
    public Duration healthCheckTimeout() {
        return healthCheckTimeout;
    }

    /** How long {@link KafkaPublisher#close()} waits for records already handed over. */
    public Duration closeTimeout() {
        return closeTimeout;
    }

    /** Whether each batch is sent as soon as it is handed over, without waiting for {@code linger.ms}. */
    public boolean flushEachBatch() {
        return flushEachBatch;
    }

    /** The payload limit the events are built with, which the size settings were checked against. */
    public int maxPayloadBytes() {
        return maxPayloadBytes;
    }

    @Override
    public String toString() {
        return "KafkaPublisherConfig" + ProducerProperties.loggable(producerProperties)
                + (flushEachBatch ? "" : " (flushEachBatch=false)");
    }

    /** Builds a {@link KafkaPublisherConfig}; {@link #build()} validates everything at once. */
    public static final class Builder {
        private final Map<String, Object> properties = new LinkedHashMap<>();
        private Duration healthCheckTimeout = DEFAULT_HEALTH_CHECK_TIMEOUT;
        private Duration closeTimeout = DEFAULT_CLOSE_TIMEOUT;
        private boolean flushEachBatch = true;
        private int maxPayloadBytes = OutboxEvent.DEFAULT_MAX_PAYLOAD_BYTES;

        private Builder() {}

        /** The Kafka {@code bootstrap.servers}, e.g. {@code broker1:9092,broker2:9092}. Required. */
        public Builder bootstrapServers(String value) {
            return property(ProducerProperties.BOOTSTRAP_SERVERS, value);
        }

        /**
         * Sets one Kafka producer property (see the class comment for the ones that are forced or
         * refused). A later call for the same name replaces the earlier value.
         */
        public Builder property(String name, Object value) {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(value, () -> "value of Kafka property " + name);
            properties.put(name, value);
            return this;
        }

        /** Sets every entry of {@code values} as a Kafka producer property. */
        public Builder properties(Map<String, ?> values) {
            values.forEach(this::property);
            return this;
        }

        /** How long a health check waits for the cluster. Default 5 s; must be positive. */
        public Builder healthCheckTimeout(Duration value) {
            this.healthCheckTimeout = Objects.requireNonNull(value, "healthCheckTimeout");
            return this;
        }

        /**
         * How long {@link KafkaPublisher#close()} lets records already handed over reach the broker
         * before it gives up on them (they become retryable failures). Default 10 s; not negative.
         */
        public Builder closeTimeout(Duration value) {
            this.closeTimeout = Objects.requireNonNull(value, "closeTimeout");
            return this;
        }

        /**
         * Whether the publisher flushes the producer after handing it each batch, so that the batch
         * is sent at once instead of after {@code linger.ms}. Default true: the relay hands a whole
         * batch over at once, so lingering would only add up to {@code linger.ms} to the latency of
         * events in small batches (the flush runs on a thread of its own; nobody waits for it). Set
         * false to let {@code linger.ms} gather the records of batches handed over within that time
         * into fewer, larger requests, at that much more latency.
         */
        public Builder flushEachBatch(boolean value) {
            this.flushEachBatch = value;
            return this;
        }

        /**
         * The payload limit the events this publisher sends are built with
         * ({@link OutboxEvent.Builder#maxPayloadBytes(int)}). Default
         * {@link OutboxEvent#DEFAULT_MAX_PAYLOAD_BYTES}. {@link #build()} refuses a {@code max.request.size}
         * or {@code buffer.memory} below {@link OutboxEvent#maxEncodedBytes(int)} of it.
         */
        public Builder maxPayloadBytes(int value) {
            this.maxPayloadBytes = value;
            return this;
        }

        /**
         * Validates and creates the configuration.
         *
         * @throws InvalidConfigurationException naming the Kafka property (or builder setting)
         *                                       whose value could lose or reorder events, or that
         *                                       Kafka would reject
         */
        public KafkaPublisherConfig build() {
            if (healthCheckTimeout.isNegative() || healthCheckTimeout.isZero()) {
                throw new InvalidConfigurationException(
                        "healthCheckTimeout", "must be positive, was " + healthCheckTimeout);
            }
            if (closeTimeout.isNegative()) {
                throw new InvalidConfigurationException("closeTimeout", "must not be negative, was " + closeTimeout);
            }
            if (maxPayloadBytes < 0) {
                throw new InvalidConfigurationException(
                        "maxPayloadBytes", "must not be negative, was " + maxPayloadBytes);
            }
            Map<String, Object> effective = ProducerProperties.effective(properties);
            RecordSizeLimits.check(effective, maxPayloadBytes);
            return new KafkaPublisherConfig(
                    effective, healthCheckTimeout, closeTimeout, flushEachBatch, maxPayloadBytes);
        }
    }
}
