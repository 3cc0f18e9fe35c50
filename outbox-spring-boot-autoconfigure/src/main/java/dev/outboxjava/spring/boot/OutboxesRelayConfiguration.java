package dev.outboxjava.spring.boot;

import dev.outboxjava.core.OutboxException;
import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.worker.ConnectionBudget;
import dev.outboxjava.worker.MultiOutboxWorker;
import dev.outboxjava.worker.OutboxWorkerConfig;
import dev.outboxjava.worker.observability.ObservedPublisher;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.util.Locale;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * The relay as a worker of many outboxes, when {@code outbox.tables} or {@code outbox.discovery.schema-pattern}
 * is set (and {@code outbox.relay.enabled} is not false): one {@link MultiOutboxWorker} over the application's
 * data source, in place of the {@link dev.outboxjava.worker.OutboxWorker} of {@code outbox.table}.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "outbox.relay.enabled", havingValue = "true", matchIfMissing = true)
@Conditional(ManyOutboxesCondition.class)
@Import(OutboxPublisherConfiguration.class)
class OutboxesRelayConfiguration {

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    MultiOutboxWorker multiOutboxWorker(
            DataSource dataSource,
            ObjectProvider<Publisher> publisher,
            OutboxProperties properties,
            ObjectProvider<MeterRegistry> registry,
            ObjectProvider<ObservationRegistry> observations) {
        Publisher broker = publisher.getIfAvailable(() -> {
            throw new OutboxException("the outbox relay of outbox.tables / outbox.discovery.schema-pattern needs a "
                    + "broker: add outbox-broker-kafka and spring-boot-starter-kafka, or outbox-broker-rabbitmq and "
                    + "spring-boot-starter-amqp; with both, choose one with outbox.broker; or set "
                    + "outbox.relay.enabled=false when another instance relays these outboxes");
        });
        OutboxWorkerConfig config = properties.worker();
        // checked here first, so that the problem names this starter's properties, not the builder's
        ConnectionBudget.poolSize(dataSource)
                .ifPresent(size -> ConnectionBudget.check(
                        config,
                        properties.getWakeUp(),
                        size,
                        "outbox.relay.threads",
                        "outbox.wake-up="
                                + properties
                                        .getWakeUp()
                                        .name()
                                        .toLowerCase(Locale.ROOT)
                                        .replace('_', '-'),
                        "spring.datasource.hikari.maximum-pool-size"));
        return MultiOutboxWorker.builder()
                .database("application", dataSource, properties.outboxTables())
                .publisher(
                        ObservedPublisher.observe(broker, observations.getIfAvailable(() -> ObservationRegistry.NOOP)))
                .config(config)
                .multiConfig(properties.multiOutboxConfig())
                .healthConfig(properties.healthConfig())
                .meterRegistry(registry.getIfAvailable(SimpleMeterRegistry::new))
                .build();
    }

    @Bean
    @ConditionalOnMissingBean
    MultiOutboxWorkerLifecycle multiOutboxWorkerLifecycle(MultiOutboxWorker worker) {
        return new MultiOutboxWorkerLifecycle(worker);
    }
}
