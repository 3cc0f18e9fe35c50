package dev.outboxjava.spring.boot;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.OutboxException;
import dev.outboxjava.core.PayloadSerializer;
import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.postgres.JsonPayloadSerializer;
import dev.outboxjava.postgres.OutboxNotifier;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.postgres.WakeUpMode;
import dev.outboxjava.postgres.health.PostgresHealthProbe;
import dev.outboxjava.postgres.inbox.PostgresInbox;
import dev.outboxjava.worker.ConnectionBudget;
import dev.outboxjava.worker.OutboxWorker;
import dev.outboxjava.worker.OutboxWorkerConfig;
import dev.outboxjava.worker.observability.DatabaseHealthMonitor;
import dev.outboxjava.worker.observability.ObservedPublisher;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.time.Clock;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;

/**
 * The outbox on the application's own beans: its {@link DataSource} (appends join Spring's
 * transaction, the relay leases from the same pool), its {@link MeterRegistry}, its broker settings,
 * and {@code outbox.*} properties ({@link OutboxProperties}). Each bean backs off when the application
 * defines one of the same type.
 *
 * <p>Beans: {@link PostgresOutboxConfig} (the one configuration of both sides), {@link PostgresOutboxStore},
 * {@link SpringOutbox} (what the application calls), and unless {@code outbox.relay.enabled=false} an
 * {@link OutboxWorker} started after the context is refreshed and stopped before the data source closes
 * ({@link OutboxWorkerLifecycle}); with {@code outbox.tables} or {@code outbox.discovery.schema-pattern}, a
 * {@link dev.outboxjava.worker.MultiOutboxWorker} of those outboxes instead ({@link MultiOutboxWorkerLifecycle}).
 */
@AutoConfiguration(
        afterName = {
            "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
            "org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration",
            "org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
            "org.springframework.boot.micrometer.tracing.autoconfigure.MicrometerTracingAutoConfiguration",
            "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration",
            "org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration",
            "org.springframework.boot.liquibase.autoconfigure.LiquibaseAutoConfiguration",
            "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration"
        })
@ConditionalOnClass(PostgresOutboxStore.class)
@ConditionalOnBean(DataSource.class)
@EnableConfigurationProperties(OutboxProperties.class)
@Import({
    OutboxSchemaConfiguration.class,
    OutboxTracingConfiguration.class,
    OutboxPayloadConfiguration.class,
    OutboxesRelayConfiguration.class
})
public class OutboxAutoConfiguration {

    /** Refuses unknown {@code outbox.*} keys before anything is built ({@link OutboxPropertyNames}). */
    OutboxAutoConfiguration(Environment environment) {
        OutboxPropertyNames.check(environment);
    }

    /** The store's configuration, shared by {@link SpringOutbox} and the relay. */
    @Bean
    @ConditionalOnMissingBean
    PostgresOutboxConfig outboxConfig(OutboxProperties properties) {
        return properties.postgres();
    }

    /**
     * The store on the application's data source; its migrations (Flyway) or its opt-in schema
     * initialisation have run before it is used.
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    PostgresOutboxStore outboxStore(
            DataSource dataSource, PostgresOutboxConfig config, ObjectProvider<OutboxSchemaReady> schema) {
        schema.ifAvailable(ready -> {});
        return PostgresOutboxStore.create(dataSource, config);
    }

    /** Routes of the application's event types: {@link EventRoute} beans, {@code outbox.routes}, {@link OutboxRoute}. */
    @Bean
    OutboxEventRouter outboxEventRouter(
            OutboxProperties properties,
            ObjectProvider<EventRoute<?>> routes,
            Environment environment,
            ResourceLoader resources) {
        String application = environment.getProperty("spring.application.name");
        String source = application == null || application.isBlank() ? OutboxEvent.DEFAULT_SOURCE : "/" + application;
        return new OutboxEventRouter(
                routes.orderedStream().toList(), properties.getRoutes(), resources.getClassLoader(), source);
    }

    /** Appends the routed events that the application publishes with its ApplicationEventPublisher. */
    @Bean
    static OutboxApplicationEventListener outboxApplicationEventListener(
            ObjectProvider<OutboxEventRouter> router, ObjectProvider<SpringOutbox> outbox) {
        return new OutboxApplicationEventListener(router::getObject, outbox::getObject);
    }

    @Bean
    @ConditionalOnMissingBean
    SpringOutbox springOutbox(
            DataSource dataSource,
            PostgresOutboxStore store,
            ObjectProvider<OutboxWorker> worker,
            ObjectProvider<OutboxTraceContext> traceContext,
            ObjectProvider<PayloadSerializer> serializer,
            OutboxEventRouter router) {
        WakeUpMode mode = store.config().wakeUpMode();
        Optional<OutboxNotifier> notifier = store.transactional().notifier();
        Runnable afterCommit = mode == WakeUpMode.NONE
                ? () -> {}
                : () -> {
                    // this instance's relay at once; other instances through the notification (NOTIFY_AFTER_COMMIT)
                    notifier.ifPresent(OutboxNotifier::signal);
                    worker.ifAvailable(running -> running.wakeUp().signal());
                };
        OutboxTraceContext trace = traceContext.getIfAvailable(() -> OutboxTraceContext.NONE);
        return new SpringOutbox(
                dataSource,
                store.writer(),
                afterCommit,
                trace::addTo,
                serializer.getIfAvailable(JsonPayloadSerializer::ofDefaults),
                router);
    }

    /** Once-per-id processing for the application's listeners; on with {@code outbox.inbox.enabled=true}. */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnProperty(name = "outbox.inbox.enabled", havingValue = "true")
    SpringInbox springInbox(
            DataSource dataSource, OutboxProperties properties, ObjectProvider<OutboxSchemaReady> schema) {
        schema.ifAvailable(ready -> {});
        return new SpringInbox(dataSource, PostgresInbox.create(dataSource, properties.inboxConfig()));
    }

    /** The publications for the application's own jobs: counts, the oldest, resubmitting failed ones. */
    @Bean
    @ConditionalOnMissingBean
    OutboxOperations outboxOperations(PostgresOutboxStore store, ObjectProvider<OutboxWorker> worker) {
        return new OutboxOperations(
                store,
                Clock.systemUTC(),
                () -> worker.ifAvailable(running -> running.wakeUp().signal()));
    }

    /**
     * The relay, sweeper and cleaner of {@code outbox.table} in this instance; off with
     * {@code outbox.relay.enabled=false}, and in place of it a worker of many outboxes when
     * {@code outbox.tables} or {@code outbox.discovery.schema-pattern} is set ({@link OutboxesRelayConfiguration}).
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(name = "outbox.relay.enabled", havingValue = "true", matchIfMissing = true)
    @Conditional(ManyOutboxesCondition.OneTable.class)
    @Import(OutboxPublisherConfiguration.class)
    static class RelayConfiguration {

        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean
        OutboxWorker outboxWorker(
                PostgresOutboxStore store,
                ObjectProvider<Publisher> publisher,
                OutboxProperties properties,
                ObjectProvider<MeterRegistry> registry,
                ObjectProvider<ObservationRegistry> observations) {
            Publisher broker = publisher.getIfAvailable(() -> {
                throw new OutboxException("the outbox relay needs a broker: add outbox-broker-kafka and "
                        + "spring-boot-starter-kafka (spring.kafka.*), or outbox-broker-rabbitmq and "
                        + "spring-boot-starter-amqp (spring.rabbitmq.*); with both on the classpath, choose one with "
                        + "outbox.broker=kafka or outbox.broker=rabbitmq; or set outbox.relay.enabled=false when "
                        + "another instance relays this service's events");
            });
            MeterRegistry meters = registry.getIfAvailable(SimpleMeterRegistry::new);
            OutboxWorkerConfig config = properties.worker();
            // checked here first, so that the problem names this starter's property, not the builder's
            ConnectionBudget.poolSize(store.dataSource())
                    .ifPresent(size -> ConnectionBudget.check(
                            config,
                            store.config().wakeUpMode(),
                            size,
                            "outbox.relay.threads",
                            "outbox.wake-up="
                                    + store.config()
                                            .wakeUpMode()
                                            .name()
                                            .toLowerCase(Locale.ROOT)
                                            .replace('_', '-'),
                            "spring.datasource.hikari.maximum-pool-size"));
            DatabaseHealthMonitor lag = new DatabaseHealthMonitor(
                    store,
                    PostgresHealthProbe.create(
                            store.dataSource(),
                            store.config().tableName(),
                            store.config().layout(),
                            Optional.empty()),
                    properties.healthConfig(),
                    Clock.systemUTC(),
                    meters,
                    config.metricsPollInterval());
            return OutboxWorker.builder()
                    .postgres(store)
                    // each event's publish observed (a span per event in its appending trace with tracing)
                    .publisher(ObservedPublisher.observe(
                            broker, observations.getIfAvailable(() -> ObservationRegistry.NOOP)))
                    .config(config)
                    .meterRegistry(meters)
                    .readinessChecks(List.of(lag))
                    .build();
        }

        @Bean
        @ConditionalOnMissingBean
        OutboxWorkerLifecycle outboxWorkerLifecycle(OutboxWorker worker) {
            return new OutboxWorkerLifecycle(worker);
        }
    }
}
