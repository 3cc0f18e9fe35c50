package dev.outboxjava.kafka.internal;

import dev.outboxjava.core.InvalidConfigurationException;
import dev.outboxjava.kafka.KafkaPublisherConfig;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns the user's Kafka producer properties into the effective ones: defaults first, the user's
 * values over them, the library's forced values last; refuses whatever could lose or reorder
 * events, naming the Kafka property.
 */
public final class ProducerProperties {

    public static final String BOOTSTRAP_SERVERS = ProducerConfig.BOOTSTRAP_SERVERS_CONFIG;

    private static final Logger log = LoggerFactory.getLogger(ProducerProperties.class);
    private static final ConfigDef PRODUCER_CONFIG = ProducerConfig.configDef();

    private ProducerProperties() {}

    /**
     * The validated, effective producer properties (unmodifiable).
     *
     * @throws InvalidConfigurationException naming the first refused Kafka property
     */
    public static Map<String, Object> effective(Map<String, Object> userProperties) {
        Object bootstrap = userProperties.get(BOOTSTRAP_SERVERS);
        if (bootstrap == null || bootstrap.toString().isBlank()) {
            throw new InvalidConfigurationException(
                    BOOTSTRAP_SERVERS,
                    "is required: the Kafka brokers to connect to, "
                            + "e.g. broker1:9092,broker2:9092 (KafkaPublisherConfig.builder().bootstrapServers(...))");
        }
        refuseOwnedByLibrary(userProperties);
        refuseUnsafeDelivery(userProperties);
        userProperties.forEach(ProducerProperties::checkKafkaAcceptsValue);

        Map<String, Object> effective = new LinkedHashMap<>();
        effective.put(ProducerConfig.LINGER_MS_CONFIG, KafkaPublisherConfig.DEFAULT_LINGER_MS);
        effective.put(ProducerConfig.BATCH_SIZE_CONFIG, KafkaPublisherConfig.DEFAULT_BATCH_SIZE_BYTES);
        effective.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, KafkaPublisherConfig.DEFAULT_COMPRESSION_TYPE);
        effective.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, KafkaPublisherConfig.MAX_IN_FLIGHT_LIMIT);
        effective.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, KafkaPublisherConfig.DEFAULT_MAX_BLOCK_MS);
        effective.put(ProducerConfig.CLIENT_ID_CONFIG, KafkaPublisherConfig.DEFAULT_CLIENT_ID);
        effective.putAll(userProperties);
        effective.put(ProducerConfig.ACKS_CONFIG, "all");
        effective.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        effective.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        effective.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        checkDeliveryTimeout(effective);
        return Collections.unmodifiableMap(effective);
    }

    /** The admin-client properties (connection and security) derived from producer properties. */
    public static Map<String, Object> adminProperties(Map<String, Object> producerProperties) {
        Map<String, Object> admin = new LinkedHashMap<>();
        producerProperties.forEach((name, value) -> {
            if (AdminClientConfig.configNames().contains(name)
                    && !name.equals(AdminClientConfig.CLIENT_ID_CONFIG)
                    && !name.equals(AdminClientConfig.METRIC_REPORTER_CLASSES_CONFIG)) {
                admin.put(name, value);
            }
        });
        admin.put(
                AdminClientConfig.CLIENT_ID_CONFIG, producerProperties.get(ProducerConfig.CLIENT_ID_CONFIG) + "-admin");
        return admin;
    }

    /** {@code max.block.ms} of effective properties. */
    public static long maxBlockMillis(Map<String, Object> properties) {
        return ((Number) parse(properties, ProducerConfig.MAX_BLOCK_MS_CONFIG)).longValue();
    }

    /** The properties with secrets (Kafka PASSWORD-typed values) hidden, sorted by name. */
    public static String loggable(Map<String, Object> properties) {
        Map<String, Object> shown = new TreeMap<>();
        properties.forEach((name, value) -> {
            ConfigDef.ConfigKey key = PRODUCER_CONFIG.configKeys().get(name);
            boolean secret = (key != null && key.type == ConfigDef.Type.PASSWORD)
                    || name.toLowerCase(Locale.ROOT).contains("password")
                    || name.endsWith("jaas.config");
            shown.put(name, secret ? "[hidden]" : value instanceof Class<?> c ? c.getName() : value);
        });
        return shown.toString();
    }

    private static void refuseOwnedByLibrary(Map<String, Object> user) {
        for (String name :
                List.of(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG)) {
            if (user.containsKey(name)) {
                throw new InvalidConfigurationException(
                        name,
                        "is set by the publisher itself (string keys, the "
                                + "event's payload bytes as value, CloudEvents attributes as headers); remove it");
            }
        }
        if (user.containsKey(ProducerConfig.TRANSACTIONAL_ID_CONFIG)) {
            throw new InvalidConfigurationException(
                    ProducerConfig.TRANSACTIONAL_ID_CONFIG,
                    "is not supported: the "
                            + "outbox gets at-least-once delivery from the idempotent producer and the event id, not from Kafka "
                            + "transactions; remove it");
        }
    }

    private static void refuseUnsafeDelivery(Map<String, Object> user) {
        if (user.containsKey(ProducerConfig.ACKS_CONFIG)) {
            String acks =
                    parse(user, ProducerConfig.ACKS_CONFIG).toString().trim().toLowerCase(Locale.ROOT);
            if (!acks.equals("all") && !acks.equals("-1")) {
                throw new InvalidConfigurationException(
                        ProducerConfig.ACKS_CONFIG,
                        "is '" + acks + "', which could lose "
                                + "events: an event would count as published before every in-sync replica has it. The "
                                + "publisher always uses acks=all; remove the setting");
            }
        }
        if (user.containsKey(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG)
                && !((Boolean) parse(user, ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG))) {
            throw new InvalidConfigurationException(
                    ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                    "is false, which lets "
                            + "producer retries duplicate and reorder events within a partition. The publisher always uses "
                            + "the idempotent producer; remove the setting");
        }
        if (user.containsKey(ProducerConfig.RETRIES_CONFIG)
                && ((Number) parse(user, ProducerConfig.RETRIES_CONFIG)).intValue() < 1) {
            throw new InvalidConfigurationException(
                    ProducerConfig.RETRIES_CONFIG,
                    "is "
                            + user.get(ProducerConfig.RETRIES_CONFIG)
                            + ": without retries a passing leader change fails "
                            + "whole batches and the idempotent producer cannot work. Remove it (Kafka's default retries "
                            + "until delivery.timeout.ms) or set it to at least 1");
        }
        if (user.containsKey(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION)) {
            int inFlight = ((Number) parse(user, ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION)).intValue();
            if (inFlight < 1 || inFlight > KafkaPublisherConfig.MAX_IN_FLIGHT_LIMIT) {
                throw new InvalidConfigurationException(
                        ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION,
                        "is "
                                + inFlight + ", but must be between 1 and " + KafkaPublisherConfig.MAX_IN_FLIGHT_LIMIT
                                + ": above that the idempotent producer can no longer keep records of a partition in order");
            }
        }
    }

    private static void checkKafkaAcceptsValue(String name, Object value) {
        ConfigDef.ConfigKey key = PRODUCER_CONFIG.configKeys().get(name);
        if (key == null) {
            log.warn("'{}' is not a known Kafka producer property; it is passed on as-is (a plugin may read it)", name);
            return;
        }
        try {
            Object parsed = ConfigDef.parseType(name, value, key.type);
            if (key.validator != null) {
                key.validator.ensureValid(name, parsed);
            }
        } catch (ConfigException e) {
            throw new InvalidConfigurationException(name, "Kafka rejects the value: " + e.getMessage());
        }
    }

    private static void checkDeliveryTimeout(Map<String, Object> effective) {
        long delivery = ((Number) parse(effective, ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG)).longValue();
        long linger = ((Number) parse(effective, ProducerConfig.LINGER_MS_CONFIG)).longValue();
        long request = ((Number) parse(effective, ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG)).longValue();
        if (delivery < linger + request) {
            throw new InvalidConfigurationException(
                    ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG,
                    "is " + delivery + " ms, but must be at least linger.ms + request.timeout.ms (" + (linger + request)
                            + " ms)");
        }
    }

    /** The typed value of a producer property: the map's value if present, else Kafka's default. */
    private static Object parse(Map<String, Object> properties, String name) {
        ConfigDef.ConfigKey key = PRODUCER_CONFIG.configKeys().get(name);
        Object raw = properties.containsKey(name) ? properties.get(name) : key.defaultValue;
        try {
            return ConfigDef.parseType(name, raw, key.type);
        } catch (ConfigException e) {
            throw new InvalidConfigurationException(name, "Kafka rejects the value: " + e.getMessage());
        }
    }
}
