package dev.outboxjava.worker.internal;

import com.google.inject.AbstractModule;
import com.google.inject.Module;
import com.google.inject.multibindings.OptionalBinder;
import dev.outboxjava.kafka.KafkaPublisherConfig;
import dev.outboxjava.rabbitmq.RabbitMqPublisherConfig;
import dev.outboxjava.worker.BrokerConfig;
import dev.outboxjava.worker.KafkaPublisherModule;
import dev.outboxjava.worker.OutboxSettings;
import dev.outboxjava.worker.OutboxWorkerModule;
import dev.outboxjava.worker.PostgresStoreModule;
import dev.outboxjava.worker.RabbitMqPublisherModule;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.List;

/** The modules of the standalone process, chosen by its settings: one store, one broker, Prometheus meters. */
public final class StandaloneModules {

    private StandaloneModules() {
    }

    public static List<Module> forSettings(OutboxSettings settings, PrometheusMeterRegistry registry) {
        return List.of(
                new OutboxWorkerModule(settings.worker()),
                new PostgresStoreModule(settings.requireDatabase(), settings.wakeUp()),
                brokerModule(settings.requireBroker(), settings.worker().relayThreads()),
                new dev.outboxjava.worker.observability.DatabaseHealthModule(settings.health()),
                new AbstractModule() {
                    @Override
                    protected void configure() {
                        OptionalBinder.newOptionalBinder(binder(), MeterRegistry.class).setBinding().toInstance(registry);
                    }
                });
    }

    public static PrometheusMeterRegistry prometheus() {
        return new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    }

    /**
     * The publisher module for the configured broker; adapter validation errors name our keys. The
     * RabbitMQ publisher gets a channel for every relay thread, so no relay waits for another's
     * confirms before it can publish.
     */
    static Module brokerModule(BrokerConfig broker, int relayThreads) {
        return switch (broker.kind()) {
            case KAFKA -> new KafkaPublisherModule(KafkaPublisherConfig.builder()
                    .properties(broker.kafkaProperties())
                    .bootstrapServers(broker.kafkaBootstrapServers())
                    .property("client.id", broker.kafkaClientId())
                    .build());
            case RABBITMQ -> new RabbitMqPublisherModule(RabbitMqPublisherConfig.custom()
                    .uri(broker.rabbitMqUri())
                    .connectionName(broker.rabbitMqConnectionName())
                    .properties(broker.rabbitMqProperties())
                    .maxConcurrentBatches(Math.max(relayThreads, RabbitMqPublisherConfig.DEFAULT_MAX_CONCURRENT_BATCHES))
                    .build());
        };
    }
}
