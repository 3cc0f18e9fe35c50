package dev.outboxjava.benchmarks.internal;

import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.PublishOutcome;
import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.kafka.KafkaPublisher;
import dev.outboxjava.kafka.KafkaPublisherConfig;
import dev.outboxjava.rabbitmq.RabbitMqPublisher;
import dev.outboxjava.rabbitmq.RabbitMqPublisherConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/** The library's publishers on the benchmark's brokers, with their default settings (and a stand-in for none). */
public final class Brokers {

    /** Which broker. */
    public enum Kind {
        KAFKA("Kafka"),
        RABBITMQ("RabbitMQ"),
        /** No broker: a publisher that acknowledges every event at once — the relay's own path alone. */
        NONE("no broker");

        private final String display;

        Kind(String display) {
            this.display = display;
        }

        public String display() {
            return display;
        }
    }

    private final Services services;
    private final Map<String, String> kafkaProperties;
    private final AtomicInteger connections = new AtomicInteger();

    /** @param kafkaProperties producer properties set on every Kafka publisher over the library's defaults */
    public Brokers(Services services, Map<String, String> kafkaProperties) {
        this.services = services;
        this.kafkaProperties = Map.copyOf(kafkaProperties);
    }

    /** A new destination: a 6-partition topic, or an exchange with a bounded queue. */
    public String newDestination(Kind kind, String prefix) {
        return switch (kind) {
            case KAFKA -> services.newTopic(prefix, 6);
            case RABBITMQ -> services.newExchange(prefix);
            case NONE -> prefix;
        };
    }

    /** A new publisher (the caller, or the worker it is handed to, closes it). */
    public Publisher newPublisher(Kind kind) {
        if (kind == Kind.NONE) {
            return new AcknowledgingPublisher();
        }
        if (kind == Kind.KAFKA) {
            KafkaPublisherConfig.Builder config =
                    KafkaPublisherConfig.builder().bootstrapServers(services.kafkaBootstrapServers());
            kafkaProperties.forEach(config::property);
            return KafkaPublisher.create(config.build());
        }
        return new RabbitMqPublisher(RabbitMqPublisherConfig.builder()
                .host(services.rabbitHost())
                .port(5672)
                .username("guest")
                .password("guest")
                .connectionName("outbox-benchmarks-relay-" + services.schema() + "-" + connections.incrementAndGet())
                .build());
    }

    /** Acknowledges every event at once, so a drain measures the relay and the database alone. */
    public static final class AcknowledgingPublisher implements Publisher {
        @Override
        public CompletableFuture<List<PublishOutcome>> publish(List<OutboxEvent> batch, Duration timeout) {
            List<PublishOutcome> outcomes = new ArrayList<>(batch.size());
            batch.forEach(event -> outcomes.add(PublishOutcome.published(event.id())));
            return CompletableFuture.completedFuture(outcomes);
        }

        @Override
        public HealthCheck checkHealth() {
            return HealthCheck.up("no broker");
        }

        @Override
        public void close() {}
    }
}
