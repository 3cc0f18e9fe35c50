package dev.outboxjava.relayapp;

import dev.outboxjava.relayapp.internal.Secrets;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Which broker the standalone worker publishes to, and how to reach it. Loaded from
 * {@code outbox.broker}, {@code outbox.kafka.*} and {@code outbox.rabbitmq.*}.
 *
 * @param kind                   Kafka or RabbitMQ
 * @param kafkaBootstrapServers  Kafka bootstrap servers (used when {@code kind} is Kafka)
 * @param kafkaClientId          Kafka producer client id
 * @param rabbitMqUri            AMQP URI (used when {@code kind} is RabbitMQ)
 * @param rabbitMqConnectionName client-provided connection name
 * @param kafkaProperties        further Kafka producer properties ({@code outbox.kafka.<property>}), by
 *                               their Kafka names
 * @param rabbitMqProperties     further RabbitMQ connection settings ({@code outbox.rabbitmq.<setting>}),
 *                               by their amqp-client {@code ConnectionFactoryConfigurator} names
 */
public record BrokerConfig(
        BrokerKind kind,
        String kafkaBootstrapServers,
        String kafkaClientId,
        String rabbitMqUri,
        String rabbitMqConnectionName,
        Map<String, String> kafkaProperties,
        Map<String, String> rabbitMqProperties) {

    public BrokerConfig {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(kafkaBootstrapServers, "kafkaBootstrapServers");
        Objects.requireNonNull(kafkaClientId, "kafkaClientId");
        Objects.requireNonNull(rabbitMqUri, "rabbitMqUri");
        Objects.requireNonNull(rabbitMqConnectionName, "rabbitMqConnectionName");
        kafkaProperties = Map.copyOf(Objects.requireNonNull(kafkaProperties, "kafkaProperties"));
        rabbitMqProperties = Map.copyOf(Objects.requireNonNull(rabbitMqProperties, "rabbitMqProperties"));
    }

    /** A broker configuration without further client properties. */
    public BrokerConfig(
            BrokerKind kind,
            String kafkaBootstrapServers,
            String kafkaClientId,
            String rabbitMqUri,
            String rabbitMqConnectionName) {
        this(kind, kafkaBootstrapServers, kafkaClientId, rabbitMqUri, rabbitMqConnectionName, Map.of(), Map.of());
    }

    /** Never prints credentials: neither those in the AMQP URI nor secret client properties. */
    @Override
    public String toString() {
        return "BrokerConfig[kind=" + kind.configValue() + ", kafkaBootstrapServers=" + kafkaBootstrapServers
                + ", kafkaClientId=" + kafkaClientId + ", rabbitMqUri=" + Secrets.maskText(rabbitMqUri)
                + ", rabbitMqConnectionName=" + rabbitMqConnectionName + ", kafkaProperties="
                + shown(kafkaProperties) + ", rabbitMqProperties=" + shown(rabbitMqProperties) + "]";
    }

    /** Where the relay publishes to, for its start-up line: the broker's address, never a credential. */
    public String describe() {
        return switch (kind) {
            case KAFKA ->
                "Kafka at " + kafkaBootstrapServers
                        + (kafkaProperties.containsKey("security.protocol")
                                ? " (" + kafkaProperties.get("security.protocol") + ")"
                                : "");
            case RABBITMQ -> "RabbitMQ at " + Secrets.maskText(rabbitMqUri) + " as '" + rabbitMqConnectionName + "'";
        };
    }

    private static String shown(Map<String, String> properties) {
        return new TreeMap<>(properties)
                .entrySet().stream()
                        .map(entry -> entry.getKey() + "=" + Secrets.show(entry.getKey(), entry.getValue()))
                        .collect(Collectors.joining(", ", "{", "}"));
    }
}
