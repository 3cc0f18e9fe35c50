package dev.outboxjava.relayapp;

import java.util.Locale;
import java.util.Optional;

/** The broker the standalone worker publishes to ({@code outbox.broker}). */
public enum BrokerKind {
    /** Apache Kafka, through {@code outbox-broker-kafka}. */
    KAFKA,
    /** RabbitMQ, through {@code outbox-broker-rabbitmq}. */
    RABBITMQ;

    /** The value as written in configuration. */
    public String configValue() {
        return name().toLowerCase(Locale.ROOT);
    }

    static Optional<BrokerKind> parse(String value) {
        for (BrokerKind kind : values()) {
            if (kind.configValue().equalsIgnoreCase(value.trim())) {
                return Optional.of(kind);
            }
        }
        return Optional.empty();
    }
}
