package dev.outboxjava.worker;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.kafka.KafkaPublisher;
import dev.outboxjava.kafka.KafkaPublisherConfig;
import java.util.Objects;

/**
 * Binds {@link Publisher} to a {@link KafkaPublisher}. Swap it for {@link RabbitMqPublisherModule}
 * to publish to RabbitMQ instead; nothing else changes. The worker closes the publisher. Wiring only.
 */
public final class KafkaPublisherModule extends AbstractModule {

    private final KafkaPublisherConfig config;

    public KafkaPublisherModule(KafkaPublisherConfig config) {
        this.config = Objects.requireNonNull(config, "config");
    }

    @Override
    protected void configure() {
        bind(KafkaPublisherConfig.class).toInstance(config);
        bind(Publisher.class).to(KafkaPublisher.class);
    }

    @Provides
    @Singleton
    KafkaPublisher publisher(KafkaPublisherConfig publisherConfig) {
        return KafkaPublisher.create(publisherConfig);
    }
}
