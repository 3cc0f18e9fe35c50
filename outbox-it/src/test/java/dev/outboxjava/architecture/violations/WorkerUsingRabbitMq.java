// Fixture for ArchitectureTest: deliberately breaks "only RabbitMqPublisherModule touches RabbitMQ".
package dev.outboxjava.worker.archviolation;

import com.rabbitmq.client.ConnectionFactory;

/** A worker class outside the RabbitMQ publisher module that a Kafka-only service would load. */
public final class WorkerUsingRabbitMq {

    public ConnectionFactory factory() {
        return new ConnectionFactory();
    }
}
