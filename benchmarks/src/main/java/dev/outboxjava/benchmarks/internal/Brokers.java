package dev.outboxjava.benchmarks.internal;

import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.kafka.KafkaPublisher;
import dev.outboxjava.kafka.KafkaPublisherConfig;
import dev.outboxjava.rabbitmq.RabbitMqPublisher;
import dev.outboxjava.rabbitmq.RabbitMqPublisherConfig;
import java.util.concurrent.atomic.AtomicInteger;

/** The library's publishers on the benchmark's brokers, with their default settings. */
public final class Brokers {

    /** Which broker. */
    public enum Kind {
        KAFKA("Kafka"), RABBITMQ("RabbitMQ");

        private final String display;

        Kind(String display) {
            this.display = display;
        }

        public String display() {
            return display;
        }
    }

    private final Services services;
    private final AtomicInteger connections = new AtomicInteger();

    public Brokers(Services services) {
        this.services = services;
    }

    /** A new destination: a 6-partition topic, or an exchange with a bounded queue. */
    public String newDestination(Kind kind, String prefix) {
        return kind == Kind.KAFKA ? services.newTopic(prefix, 6) : services.newExchange(prefix);
    }

    /** A new publisher (the caller, or the worker it is handed to, closes it). */
    public Publisher newPublisher(Kind kind) {
        if (kind == Kind.KAFKA) {
            return KafkaPublisher.create(KafkaPublisherConfig.builder()
                    .bootstrapServers(services.kafka().bootstrapServers()).build());
        }
        return new RabbitMqPublisher(RabbitMqPublisherConfig.custom().host(services.rabbitHost()).port(5672)
                .username("guest").password("guest")
                .connectionName("outbox-benchmarks-relay-" + services.schema() + "-" + connections.incrementAndGet())
                .build());
    }
}
