// Fixture for ArchitectureTest: deliberately breaks "adapters never depend on each other".
package dev.outboxjava.rabbitmq.archviolation;

import dev.outboxjava.kafka.KafkaPublisher;

/** A RabbitMQ-adapter class that knows the Kafka adapter. */
public final class RabbitMqUsingKafka {

    private RabbitMqUsingKafka() {}

    public static String publisherName(KafkaPublisher publisher) {
        return publisher.toString();
    }
}
