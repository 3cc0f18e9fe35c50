package dev.outboxjava.kafka.internal;

import dev.outboxjava.core.InvalidConfigurationException;
import dev.outboxjava.core.OutboxEvent;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigDef;

/**
 * Refuses producer settings too small for the largest event the builder accepts: a record larger
 * than {@code max.request.size} or {@code buffer.memory} is refused by the producer itself, so such
 * an event would be dead-lettered on its first attempt, long after it was accepted.
 */
public final class RecordSizeLimits {

    private static final ConfigDef PRODUCER_CONFIG = ProducerConfig.configDef();

    private RecordSizeLimits() {}

    /**
     * Checks that {@code max.request.size} and {@code buffer.memory} hold the largest accepted event.
     *
     * @param effective       the effective producer properties
     * @param maxPayloadBytes the payload limit the events are built with
     * @throws InvalidConfigurationException naming the Kafka property that cannot hold the largest event
     */
    public static void check(Map<String, Object> effective, int maxPayloadBytes) {
        long largest = OutboxEvent.maxEncodedBytes(maxPayloadBytes);
        for (String name : new String[] {ProducerConfig.MAX_REQUEST_SIZE_CONFIG, ProducerConfig.BUFFER_MEMORY_CONFIG}) {
            long limit = value(effective, name);
            if (limit < largest) {
                throw new InvalidConfigurationException(
                        name,
                        "is " + limit + " bytes, but the largest event the "
                                + "outbox accepts takes up to " + largest + " bytes (maxPayloadBytes " + maxPayloadBytes
                                + " plus " + OutboxEvent.ENVELOPE_RESERVE_BYTES + " for key, headers and CloudEvents "
                                + "attributes) and would be refused by the producer. Raise " + name + " to at least "
                                + largest + " (and the topics' max.message.bytes with it), or build events with a "
                                + "maxPayloadBytes of at most "
                                + Math.max(0, limit - OutboxEvent.ENVELOPE_RESERVE_BYTES)
                                + " and give the publisher the same value");
            }
        }
    }

    private static long value(Map<String, Object> properties, String name) {
        ConfigDef.ConfigKey key = PRODUCER_CONFIG.configKeys().get(name);
        Object raw = properties.containsKey(name) ? properties.get(name) : key.defaultValue;
        return ((Number) ConfigDef.parseType(name, raw, key.type)).longValue();
    }
}
