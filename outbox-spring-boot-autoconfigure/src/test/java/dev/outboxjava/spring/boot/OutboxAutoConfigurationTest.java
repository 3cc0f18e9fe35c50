package dev.outboxjava.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.PublishOutcome;
import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.kafka.KafkaPublisher;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.postgres.StoreLayout;
import dev.outboxjava.rabbitmq.RabbitMqPublisher;
import dev.outboxjava.testkit.postgres.PostgresFixture;
import dev.outboxjava.worker.OutboxWorker;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.tracing.Tracer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.boot.liquibase.autoconfigure.LiquibaseAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Every condition and back-off of the auto-configuration, one context each, on the real database. */
@DisplayName("The outbox auto-configuration")
class OutboxAutoConfigurationTest {

    private static final PostgresFixture postgres = PostgresFixture.shared();

    private final String schema = postgres.newSchema();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    DataSourceAutoConfiguration.class,
                    DataSourceTransactionManagerAutoConfiguration.class,
                    TransactionAutoConfiguration.class,
                    KafkaAutoConfiguration.class,
                    OutboxAutoConfiguration.class,
                    OutboxActuatorAutoConfiguration.class))
            .withPropertyValues(
                    "spring.datasource.url=" + postgres.jdbcUrl(),
                    "spring.datasource.username=" + postgres.user(),
                    "spring.datasource.password=" + postgres.password(),
                    "spring.kafka.bootstrap-servers=127.0.0.1:1",
                    "outbox.broker=kafka",
                    "outbox.table=" + schema + ".outbox_events",
                    "outbox.schema.initialize=true",
                    "outbox.relay.shutdown-timeout=0s");

    @AfterEach
    void dropSchema() {
        postgres.dropSchema(schema);
    }

    @Test
    @DisplayName(
            "with a DataSource and spring.kafka.*: the appender, the store, a Kafka publisher and a started worker")
    void kafkaService() {
        runner.run(context -> {
            assertThat(context)
                    .hasNotFailed()
                    .hasSingleBean(SpringOutbox.class)
                    .hasSingleBean(PostgresOutboxStore.class)
                    .hasSingleBean(KafkaPublisher.class)
                    .hasSingleBean(OutboxWorker.class)
                    .hasSingleBean(OutboxWorkerLifecycle.class)
                    .hasSingleBean(OutboxHealthIndicator.class)
                    .hasSingleBean(OutboxEndpoint.class)
                    .doesNotHaveBean(RabbitMqPublisher.class);
            assertThat(context.getBean(OutboxWorker.class).isRunning())
                    .as("started with the context")
                    .isTrue();
            assertThat(context.getBean(PostgresOutboxConfig.class).tableName()).isEqualTo(schema + ".outbox_events");
        });
    }

    @Test
    @DisplayName("without a DataSource: nothing")
    void noDataSource() {
        new ApplicationContextRunner()
                .withConfiguration(
                        AutoConfigurations.of(OutboxAutoConfiguration.class, OutboxActuatorAutoConfiguration.class))
                .run(context -> assertThat(context)
                        .hasNotFailed()
                        .doesNotHaveBean(SpringOutbox.class)
                        .doesNotHaveBean(OutboxWorker.class)
                        .doesNotHaveBean(OutboxEndpoint.class));
    }

    @Test
    @DisplayName("with outbox.relay.enabled=false: the appender without a relay (a write-only service)")
    void writeOnly() {
        runner.withPropertyValues("outbox.relay.enabled=false")
                .run(context -> assertThat(context)
                        .hasNotFailed()
                        .hasSingleBean(SpringOutbox.class)
                        .doesNotHaveBean(OutboxWorker.class)
                        .doesNotHaveBean(OutboxWorkerLifecycle.class)
                        .doesNotHaveBean(OutboxHealthIndicator.class)
                        .doesNotHaveBean(Publisher.class));
    }

    @Test
    @DisplayName("backs off for the application's own Publisher, configuration and appender")
    void backsOff() {
        runner.withUserConfiguration(OwnBeans.class).run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(KafkaPublisher.class);
            assertThat(context.getBean(Publisher.class)).isSameAs(context.getBean(OwnBeans.class).publisher);
            assertThat(context.getBean(OutboxWorker.class).publisher()).isSameAs(context.getBean(Publisher.class));
            assertThat(context.getBean(PostgresOutboxConfig.class).notifyChannel())
                    .isEqualTo("own_channel");
        });
    }

    @Test
    @DisplayName("puts its meters into the application's MeterRegistry")
    void applicationRegistry() {
        runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new).run(context -> {
            assertThat(context.getBean(OutboxWorker.class).meterRegistry())
                    .isSameAs(context.getBean(MeterRegistry.class));
            assertThat(context.getBean(MeterRegistry.class)
                            .find("outbox.events.published")
                            .counter())
                    .isNotNull();
        });
    }

    @Test
    @DisplayName(
            "with both brokers and outbox.broker=rabbitmq: the RabbitMQ publisher on Spring AMQP's connection factory")
    void rabbitmqChosen() {
        runner.withConfiguration(AutoConfigurations.of(RabbitAutoConfiguration.class))
                .withPropertyValues("outbox.broker=rabbitmq", "spring.rabbitmq.host=127.0.0.1")
                .run(context -> assertThat(context)
                        .hasNotFailed()
                        .hasSingleBean(RabbitMqPublisher.class)
                        .doesNotHaveBean(KafkaPublisher.class));
    }

    @Test
    @DisplayName("with both brokers and no outbox.broker: a start failure that asks for it, not a silent pick")
    void bothBrokersUnchosen() {
        runner.withConfiguration(AutoConfigurations.of(RabbitAutoConfiguration.class))
                .withPropertyValues("spring.rabbitmq.host=127.0.0.1", "outbox.broker=")
                .run(context -> assertThat(context)
                        .hasFailed()
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("outbox.broker=kafka or outbox.broker=rabbitmq"));
    }

    @Test
    @DisplayName("without a broker module, a relay is a start failure that says what to add")
    void noBroker() {
        runner.withClassLoader(new FilteredClassLoader(KafkaPublisher.class, RabbitMqPublisher.class))
                .run(context -> assertThat(context)
                        .hasFailed()
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("add outbox-broker-kafka")
                        .hasMessageContaining("outbox.relay.enabled=false"));
    }

    @Test
    @DisplayName("refuses an unusable property at start, naming it as typed and its value as written")
    void invalidProperty() {
        runner.withPropertyValues(
                        "outbox.relay.threads=0", "outbox.relay.batch-size=50000", "outbox.sweeper.lease-timeout=5s")
                .run(context -> assertThat(context)
                        .hasFailed()
                        .getFailure()
                        .rootCause()
                        .satisfies(cause -> assertThat(cause.toString())
                                .contains("outbox.relay.threads must be between 1 and 64, was 0")
                                .contains("outbox.relay.batch-size must be between 1 and 10000, was 50000")
                                .contains("outbox.sweeper.lease-timeout must be longer than "
                                        + "outbox.relay.publish-timeout (30s), was 5s")
                                .doesNotContain("batchSize", "leaseTimeout", "PT5S", "PT30S")));
    }

    @Test
    @DisplayName("refuses an unknown outbox.* key at start, naming the nearest property")
    void unknownProperty() {
        runner.withPropertyValues("outbox.relay.batch.size=50000", "outbox.relay.treads=2", "outbox.flux-capacitor=on")
                .run(context -> assertThat(context)
                        .hasFailed()
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining(
                                "outbox.relay.batch.size is not a property of the outbox starter; did you mean "
                                        + "outbox.relay.batch-size?")
                        .hasMessageContaining("outbox.relay.treads is not a property of the outbox starter; did you "
                                + "mean outbox.relay.threads?")
                        .hasMessageContaining("outbox.flux-capacitor is not a property of the outbox starter;")
                        .satisfies(cause -> assertThat(cause.getMessage())
                                .doesNotContain("outbox.flux-capacitor is not a property of the outbox starter; did")));
    }

    @Test
    @DisplayName("accepts every property in its relaxed spellings, and routes by class name")
    void knownProperties() {
        runner.withPropertyValues(
                        "outbox.relay.batchSize=10",
                        "outbox.health.max_lag=1m",
                        "outbox.routes[java.lang.String].destination=strings",
                        "outbox.routes[java.lang.String].routing-key=r")
                .run(context -> assertThat(context).hasNotFailed());
        assertThat(OutboxPropertyNames.KNOWN)
                .contains("outbox.relay.batch-size", "outbox.health.max-broker-outage", "outbox.routes.*.routing-key")
                .doesNotContain("outbox.relay", "outbox.routes");
    }

    @Test
    @DisplayName("refuses more relay threads than the application's pool can serve, in the starter's words")
    void poolTooSmall() {
        runner.withPropertyValues("spring.datasource.hikari.maximum-pool-size=2", "outbox.relay.threads=2")
                .run(context -> assertThat(context)
                        .hasFailed()
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("outbox.relay.threads")
                        .hasMessageContaining("outbox.wake-up=notify-after-commit")
                        .hasMessageContaining("spring.datasource.hikari.maximum-pool-size is 2")
                        .satisfies(cause -> assertThat(cause.getMessage()).doesNotContain("NOTIFY_AFTER_COMMIT")));
    }

    @Test
    @DisplayName("closes the Kafka publisher when the worker fails to start: no producer thread is left reconnecting")
    void publisherClosedWhenTheWorkerFails() {
        String clientId = "leak-check-" + java.util.UUID.randomUUID();
        runner.withPropertyValues(
                        "spring.datasource.hikari.maximum-pool-size=2",
                        "outbox.relay.threads=2",
                        "spring.kafka.producer.client-id=" + clientId)
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).hasStackTraceContaining("outbox.relay.threads");
                });
        assertThat(Thread.getAllStackTraces().keySet())
                .filteredOn(Thread::isAlive)
                .extracting(Thread::getName)
                .noneMatch(name -> name.contains(clientId));
    }

    @Test
    @DisplayName("the health details are fields: database, broker, lag and backlog, with the starter's property names")
    void healthFields() {
        runner.withPropertyValues("outbox.health.max-broker-outage=0s").run(context -> {
            org.springframework.boot.health.contributor.Health health =
                    context.getBean(OutboxHealthIndicator.class).health();

            assertThat(health.getStatus().getCode())
                    .as("the broker at 127.0.0.1:1 never answers")
                    .isEqualTo("DOWN");
            assertThat(health.getDetails().get("database"))
                    .asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP)
                    .containsEntry("status", "UP");
            assertThat(health.getDetails().get("broker"))
                    .asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP)
                    .containsEntry("status", "DOWN")
                    .containsEntry("maxBrokerOutage", "0s")
                    .containsKey("downFor")
                    .extractingByKey("detail")
                    .asString()
                    .contains("over outbox.health.max-broker-outage=0s");
            assertThat(health.getDetails().get("lag"))
                    .asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP)
                    .containsEntry("status", "UP")
                    .containsEntry("maxLag", "5m")
                    .containsEntry("oldestEligibleWait", "0s");
            assertThat(health.getDetails().get("backlog"))
                    .asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP)
                    .containsEntry("eligible", 0L)
                    .containsEntry("held", 0L);
            assertThat(health.getDetails().toString()).doesNotContain("outbox.health.max.");
        });
        assertThat(OutboxHealthIndicator.spring("over outbox.health.max.lag=5m; outbox.health.max.xmin.age=10m"))
                .isEqualTo("over outbox.health.max-lag=5m; outbox.health.max-xmin-age=10m");
    }

    @Test
    @DisplayName("with Flyway and outbox.store.layout=in-place: the in-place migrations run beside the application's, "
            + "in a history of their own")
    void flyway() {
        runner.withConfiguration(AutoConfigurations.of(FlywayAutoConfiguration.class))
                .withPropertyValues(
                        "outbox.schema.initialize=false",
                        "outbox.store.layout=in-place",
                        "spring.flyway.schemas=" + schema,
                        "spring.flyway.locations=classpath:db/shop")
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(OutboxSchemaReady.class);
                    assertThat(context.getBean(OutboxSchemaReady.class).how()).contains("Flyway");
                    assertThat(tables())
                            .contains("orders", "outbox_events", "outbox_schema_history", "flyway_schema_history")
                            .contains(
                                    "outbox_operator_schema_history", "outbox_events_audit", "outbox_events_attempts");
                });
    }

    @Test
    @DisplayName("with Liquibase and outbox.store.layout=in-place: the outbox's changelog runs beside the "
            + "application's, in changelog tables of its own")
    void liquibase() {
        runner.withConfiguration(AutoConfigurations.of(LiquibaseAutoConfiguration.class))
                .withPropertyValues(
                        "outbox.schema.initialize=false",
                        "outbox.store.layout=in-place",
                        "outbox.ordering.mode=per-key",
                        "spring.liquibase.change-log=classpath:db/shop-liquibase/changelog.xml",
                        "spring.liquibase.default-schema=" + schema,
                        "spring.liquibase.liquibase-schema=" + schema)
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(OutboxSchemaReady.class);
                    assertThat(context.getBean(OutboxSchemaReady.class).how()).contains("Liquibase");
                    assertThat(tables())
                            .contains("orders", "outbox_events", "databasechangelog", "outbox_databasechangelog")
                            .contains("outbox_events_audit", "outbox_events_attempts");
                    assertThat(indexes()).contains("outbox_events_key_guard_idx", "outbox_events_key_held_idx");
                    assertAppendsAndFinds(context);
                });
    }

    @Test
    @DisplayName("with Flyway, by default: the append-only layout's migrations, in a history of their own")
    void flywayAppendLog() {
        runner.withConfiguration(AutoConfigurations.of(FlywayAutoConfiguration.class))
                .withPropertyValues(
                        "outbox.inbox.enabled=true",
                        "outbox.inbox.table=" + schema + ".outbox_inbox",
                        "outbox.schema.initialize=false",
                        "spring.flyway.schemas=" + schema,
                        "spring.flyway.locations=classpath:db/shop")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(PostgresOutboxConfig.class).layout())
                            .isEqualTo(StoreLayout.APPEND_LOG);
                    assertThat(context.getBean(OutboxSchemaReady.class).how())
                            .contains("outbox_append_log_schema_history");
                    assertThat(tables())
                            .contains("orders", "outbox_events", "outbox_events_state", "outbox_events_lease")
                            .contains("outbox_append_log_schema_history", "outbox_operator_schema_history")
                            .contains("outbox_events_audit", "outbox_events_attempts")
                            .contains("outbox_inbox", "outbox_inbox_schema_history")
                            .doesNotContain("outbox_schema_history");
                    assertAppendsAndFinds(context);
                });
    }

    @Test
    @DisplayName("with Liquibase and outbox.store.layout=append-log: the append-only layout's change set, the "
            + "in-place ones marked as ran")
    void liquibaseAppendLog() {
        runner.withConfiguration(AutoConfigurations.of(LiquibaseAutoConfiguration.class))
                .withPropertyValues(
                        "outbox.schema.initialize=false",
                        "outbox.store.layout=append-log",
                        "outbox.ordering.mode=per-key",
                        "outbox.inbox.enabled=true",
                        "spring.liquibase.change-log=classpath:db/shop-liquibase/changelog.xml",
                        "spring.liquibase.default-schema=" + schema,
                        "spring.liquibase.liquibase-schema=" + schema)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(tables()).contains("orders", "outbox_events", "outbox_events_state");
                    assertThat(indexes())
                            .contains("outbox_events_state_key_idx")
                            .doesNotContain("outbox_events_pending_idx", "outbox_events_key_guard_idx");
                    assertThat(names("SELECT id || ' ' || exectype FROM " + schema
                                    + ".outbox_databasechangelog ORDER BY orderexecuted"))
                            .containsExactly(
                                    "outbox-table-1 MARK_RAN",
                                    "outbox-table-2 MARK_RAN",
                                    "outbox-per-key-indexes MARK_RAN",
                                    "outbox-append-log-1 EXECUTED",
                                    "outbox-append-log-2 EXECUTED",
                                    "outbox-append-log-3 EXECUTED",
                                    "outbox-append-log-4 EXECUTED",
                                    "outbox-append-log-5 EXECUTED",
                                    "outbox-operator-1 EXECUTED",
                                    "outbox-operator-2 EXECUTED",
                                    "outbox-operator-3 EXECUTED",
                                    "outbox-operator-4 EXECUTED",
                                    "outbox-operator-5 EXECUTED",
                                    "outbox-inbox-table-1 EXECUTED");
                    assertThat(tables()).contains("outbox_inbox");
                    assertThat(tables()).contains("outbox_events_audit", "outbox_events_attempts");
                    assertThat(indexes()).contains("outbox_events_log_idx").doesNotContain("outbox_events_key_idx");
                    assertAppendsAndFinds(context);
                });
    }

    /** An event appended in the application's transaction is in the store. */
    private static void assertAppendsAndFinds(org.springframework.context.ApplicationContext context) {
        OutboxEvent event = OutboxEvent.builder()
                .type("t")
                .destination("d")
                .payload(new byte[0])
                .build();
        context.getBean(org.springframework.transaction.support.TransactionTemplate.class)
                .executeWithoutResult(
                        status -> context.getBean(SpringOutbox.class).append(event));
        assertThat(context.getBean(PostgresOutboxStore.class).find(event.id())).isPresent();
    }

    @Test
    @DisplayName("without the actuator on the classpath: no health indicator, no endpoint")
    void noActuator() {
        runner.withClassLoader(new FilteredClassLoader(
                        HealthIndicator.class, org.springframework.boot.actuate.endpoint.annotation.Endpoint.class))
                .run(context -> assertThat(context)
                        .hasNotFailed()
                        .doesNotHaveBean(OutboxHealthIndicator.class)
                        .doesNotHaveBean(OutboxEndpoint.class)
                        .hasSingleBean(OutboxWorker.class));
    }

    @Test
    @DisplayName("with the application's ObservationRegistry: the relay's publishes are observed; without one, not")
    void observations() {
        io.micrometer.observation.ObservationRegistry observations =
                io.micrometer.observation.ObservationRegistry.create();
        observations.observationConfig().observationHandler(context -> true);
        runner.withBean(io.micrometer.observation.ObservationRegistry.class, () -> observations)
                .run(context -> assertThat(context.getBean(OutboxWorker.class).publisher())
                        .isInstanceOf(dev.outboxjava.worker.observability.ObservedPublisher.class));
        runner.run(context ->
                assertThat(context.getBean(OutboxWorker.class).publisher()).isInstanceOf(KafkaPublisher.class));
    }

    @Test
    @DisplayName("with Micrometer Tracing: appended events carry the current span's traceparent")
    void tracing() {
        runner.withBean(Tracer.class, () -> Tracer.NOOP).run(context -> {
            assertThat(context).hasSingleBean(OutboxTraceContext.class);
            OutboxTraceContext fixed = () -> "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
            OutboxEvent event = OutboxEvent.builder()
                    .type("t")
                    .destination("d")
                    .payload(new byte[0])
                    .build();
            assertThat(fixed.addTo(List.of(event)).get(0).headers())
                    .containsEntry("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
        });
    }

    private List<String> indexes() {
        return names("SELECT indexname FROM pg_indexes WHERE schemaname = '" + schema + "'");
    }

    private List<String> tables() {
        return names("SELECT table_name FROM information_schema.tables WHERE table_schema = '" + schema + "'");
    }

    private List<String> names(String sql) {
        try (var connection = postgres.openConnection();
                var rows = connection.createStatement().executeQuery(sql)) {
            List<String> names = new java.util.ArrayList<>();
            while (rows.next()) {
                names.add(rows.getString(1));
            }
            return names;
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnBeans {
        final Publisher publisher = new Publisher() {
            @Override
            public CompletableFuture<List<PublishOutcome>> publish(List<OutboxEvent> batch, Duration timeout) {
                return CompletableFuture.completedFuture(batch.stream()
                        .map(e -> PublishOutcome.published(e.id()))
                        .toList());
            }

            @Override
            public HealthCheck checkHealth() {
                return HealthCheck.up("own");
            }

            @Override
            public void close() {}
        };

        @Bean
        Publisher ownPublisher() {
            return publisher;
        }

        @Bean
        PostgresOutboxConfig ownConfig(OutboxProperties properties) {
            return properties.postgres().toBuilder()
                    .notifyChannel("own_channel")
                    .build();
        }
    }
}
