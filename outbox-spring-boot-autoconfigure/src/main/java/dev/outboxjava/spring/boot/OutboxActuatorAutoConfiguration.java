package dev.outboxjava.spring.boot;

import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.worker.MultiOutboxWorker;
import dev.outboxjava.worker.OutboxWorker;
import java.time.Clock;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The outbox in the application's actuator: the health indicator {@code outbox} (when the relay runs
 * here, of one table or of many outboxes) and the operator endpoint {@code outbox} (of {@code outbox.table}). Each backs off for a bean of the same type.
 */
@AutoConfiguration(after = OutboxAutoConfiguration.class)
@ConditionalOnBean(PostgresOutboxStore.class)
public class OutboxActuatorAutoConfiguration {

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(HealthIndicator.class)
    static class Health {

        @Bean
        @ConditionalOnBean(OutboxWorker.class)
        @ConditionalOnMissingBean
        OutboxHealthIndicator outboxHealthIndicator(OutboxWorker worker, OutboxProperties properties) {
            return new OutboxHealthIndicator(worker, properties);
        }
    }

    /** The health indicator {@code outbox} of a worker of many outboxes. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(HealthIndicator.class)
    static class ManyOutboxesHealth {

        @Bean("outboxHealthIndicator")
        @ConditionalOnBean(MultiOutboxWorker.class)
        @ConditionalOnMissingBean
        OutboxesHealthIndicator outboxesHealthIndicator(MultiOutboxWorker worker) {
            return new OutboxesHealthIndicator(worker);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(Endpoint.class)
    static class Operator {

        @Bean
        @ConditionalOnMissingBean
        OutboxEndpoint outboxEndpoint(PostgresOutboxStore store, ObjectProvider<OutboxWorker> worker) {
            return new OutboxEndpoint(
                    store,
                    Clock.systemUTC(),
                    () -> worker.ifAvailable(running -> running.wakeUp().signal()));
        }
    }
}
