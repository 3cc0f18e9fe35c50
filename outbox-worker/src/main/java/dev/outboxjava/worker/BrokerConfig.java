package dev.outboxjava.worker;

import java.util.Objects;

/**
 * Which broker the standalone worker publishes to, and how to reach it. Loaded from
 * {@code outbox.broker}, {@code outbox.kafka.*} and {@code outbox.rabbitmq.*}.
 *
 * @param kind                   Kafka or RabbitMQ
 * @param kafkaBootstrapServers  Kafka bootstrap servers (used when {@code kind} is Kafka)
 * @param kafkaClientId          Kafka producer client id
 * @param rabbitMqUri            AMQP URI (used when {@code kind} is RabbitMQ)
 * @param rabbitMqConnectionName client-provided connection name
 */
public record BrokerConfig(BrokerKind kind, String kafkaBootstrapServers, String kafkaClientId, String rabbitMqUri,
        String rabbitMqConnectionName) {

    public BrokerConfig {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(kafkaBootstrapServers, "kafkaBootstrapServers");
        Objects.requireNonNull(kafkaClientId, "kafkaClientId");
        Objects.requireNonNull(rabbitMqUri, "rabbitMqUri");
        Objects.requireNonNull(rabbitMqConnectionName, "rabbitMqConnectionName");
    }

    /** Never prints credentials embedded in the AMQP URI. */
    @Override
    public String toString() {
        return "BrokerConfig[kind=" + kind.configValue() + ", kafkaBootstrapServers=" + kafkaBootstrapServers
                + ", kafkaClientId=" + kafkaClientId + ", rabbitMqUri=" + rabbitMqUri.replaceAll("//[^@/]*@", "//***@")
                + ", rabbitMqConnectionName=" + rabbitMqConnectionName + "]";
    }
}
