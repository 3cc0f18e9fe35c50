package dev.outboxjava.worker;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.rabbitmq.RabbitMqPublisher;
import dev.outboxjava.rabbitmq.RabbitMqPublisherConfig;
import java.util.Objects;

/**
 * Binds {@link Publisher} to a {@link RabbitMqPublisher}. Swap it for {@link KafkaPublisherModule}
 * to publish to Kafka instead; nothing else changes. The worker closes the publisher. Wiring only.
 */
public final class RabbitMqPublisherModule extends AbstractModule {

    private final RabbitMqPublisherConfig config;

    public RabbitMqPublisherModule(RabbitMqPublisherConfig config) {
        this.config = Objects.requireNonNull(config, "config");
    }

    @Override
    protected void configure() {
        bind(RabbitMqPublisherConfig.class).toInstance(config);
        bind(Publisher.class).to(RabbitMqPublisher.class);
    }

    @Provides
    @Singleton
    RabbitMqPublisher publisher(RabbitMqPublisherConfig publisherConfig) {
        return new RabbitMqPublisher(publisherConfig);
    }
}
