package dev.outboxjava.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.testkit.RecordingPublisher;
import dev.outboxjava.testkit.postgres.PostgresFixture;
import dev.outboxjava.worker.MultiOutboxWorker;
import dev.outboxjava.worker.OutboxId;
import dev.outboxjava.worker.OutboxWorker;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;

/** outbox.tables and outbox.discovery.schema-pattern: the relay as a worker of many outboxes, on the real database. */
@DisplayName("The outbox auto-configuration with many outboxes")
class ManyOutboxesAutoConfigurationTest {

    private static final PostgresFixture postgres = PostgresFixture.shared();

    private final String first = postgres.newSchema();
    private final String second = postgres.newSchema();
    private final RecordingPublisher publisher = new RecordingPublisher();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    DataSourceAutoConfiguration.class,
                    DataSourceTransactionManagerAutoConfiguration.class,
                    TransactionAutoConfiguration.class,
                    OutboxAutoConfiguration.class,
                    OutboxActuatorAutoConfiguration.class))
            .withBean(Publisher.class, () -> publisher)
            .withPropertyValues(
                    "spring.datasource.url=" + postgres.jdbcUrl(),
                    "spring.datasource.username=" + postgres.user(),
                    "spring.datasource.password=" + postgres.password(),
                    "outbox.table=" + first + ".outbox_events",
                    "outbox.schema.initialize=true",
                    "outbox.relay.shutdown-timeout=0s");

    @AfterEach
    void dropSchemas() {
        postgres.dropSchema(first);
        postgres.dropSchema(second);
    }

    /** The table of {@code schema}, with the starter's default settings, holding {@code count} new events. */
    private List<UUID> tenant(String schema, int count) throws Exception {
        PostgresOutboxStore store = PostgresOutboxStore.create(
                postgres.dataSource(),
                new OutboxProperties()
                        .postgres().toBuilder()
                                .tableName(schema + ".outbox_events")
                                .build());
        store.ensureSchema();
        List<OutboxEvent> events = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            events.add(OutboxEvent.builder()
                    .type("order.placed")
                    .destination("orders")
                    .key(schema)
                    .payload(Integer.toString(i).getBytes(StandardCharsets.UTF_8))
                    .build());
        }
        try (Connection connection = postgres.dataSource().getConnection()) {
            connection.setAutoCommit(false);
            store.writer().append(connection, events);
            connection.commit();
        }
        return events.stream().map(OutboxEvent::id).toList();
    }

    @Test
    @DisplayName("given outbox.tables, then a started worker of those outboxes relays every table, in place of the"
            + " one-table worker, and the health indicator outbox lists them")
    void listedTables() throws Exception {
        List<UUID> ids = new ArrayList<>(tenant(first, 20));
        ids.addAll(tenant(second, 30));

        runner.withPropertyValues("outbox.tables=" + first + ".outbox_events," + second + ".outbox_events")
                .run(context -> {
                    assertThat(context)
                            .hasNotFailed()
                            .hasSingleBean(MultiOutboxWorker.class)
                            .hasSingleBean(MultiOutboxWorkerLifecycle.class)
                            .hasSingleBean(SpringOutbox.class)
                            .doesNotHaveBean(OutboxWorker.class)
                            .doesNotHaveBean(OutboxHealthIndicator.class);
                    MultiOutboxWorker worker = context.getBean(MultiOutboxWorker.class);
                    assertThat(worker.isRunning())
                            .as("started with the context")
                            .isTrue();
                    assertThat(worker.outboxes()).extracting(OutboxId::schema).containsExactlyInAnyOrder(first, second);
                    await().atMost(Duration.ofSeconds(30))
                            .untilAsserted(
                                    () -> assertThat(publisher.publishedIds()).containsAll(ids));

                    Health health = context.getBean("outboxHealthIndicator", HealthIndicator.class)
                            .health();
                    assertThat(health.getStatus()).isEqualTo(Status.UP);
                    assertThat(health.getDetails().get("outboxes").toString())
                            .contains(first)
                            .contains(second);
                });
    }

    @Test
    @DisplayName("given YAML-style list entries outbox.tables[0], then they are known properties")
    void indexedEntries() {
        runner.withPropertyValues("outbox.tables[0]=" + first + ".outbox_events")
                .run(context -> assertThat(context).hasNotFailed().hasSingleBean(MultiOutboxWorker.class));
    }

    @Test
    @DisplayName("given outbox.discovery.schema-pattern, then every matching schema holding outbox.table is relayed")
    void discoveredSchemas() throws Exception {
        List<UUID> ids = new ArrayList<>(tenant(first, 10));
        ids.addAll(tenant(second, 10));

        runner.withPropertyValues(
                        "outbox.table=outbox_events",
                        "outbox.schema.initialize=false",
                        "outbox.discovery.schema-pattern=" + first + "|" + second,
                        "outbox.discovery.interval=1s")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(MultiOutboxWorker.class).outboxes())
                            .extracting(OutboxId::qualifiedTable)
                            .containsExactlyInAnyOrder(first + ".outbox_events", second + ".outbox_events");
                    await().atMost(Duration.ofSeconds(30))
                            .untilAsserted(
                                    () -> assertThat(publisher.publishedIds()).containsAll(ids));
                });
    }

    @Test
    @DisplayName("given both a list and a pattern, then the start fails naming outbox.discovery.schema-pattern")
    void listAndPattern() {
        runner.withPropertyValues(
                        "outbox.tables=" + first + ".outbox_events", "outbox.discovery.schema-pattern=tenant_.*")
                .run(context -> assertThat(context)
                        .hasFailed()
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("outbox.discovery.schema-pattern")
                        .hasMessageContaining("outbox.tables"));
    }

    @Test
    @DisplayName("given a pattern and a qualified outbox.table, a list naming a table twice or a bad name, then the"
            + " start fails naming the property")
    void invalidValues() {
        for (Map.Entry<String, String[]> invalid : Map.of(
                        "outbox.table",
                        new String[] {"outbox.discovery.schema-pattern=tenant_.*"},
                        "outbox.tables lists the table",
                        new String[] {"outbox.tables=a.outbox_events,a.outbox_events"},
                        "outbox.tables must list",
                        new String[] {"outbox.tables=Bad-Name"},
                        "outbox.discovery.interval",
                        new String[] {"outbox.tables=a.outbox_events", "outbox.discovery.interval=0s"})
                .entrySet()) {
            runner.withPropertyValues(invalid.getValue())
                    .run(context -> assertThat(context)
                            .as(String.join(", ", invalid.getValue()))
                            .hasFailed()
                            .getFailure()
                            .rootCause()
                            .hasMessageContaining(invalid.getKey()));
        }
    }

    @Test
    @DisplayName("given outbox.tables and outbox.relay.enabled=false, then no worker runs here")
    void writeOnly() {
        runner.withPropertyValues("outbox.tables=" + first + ".outbox_events", "outbox.relay.enabled=false")
                .run(context -> assertThat(context)
                        .hasNotFailed()
                        .doesNotHaveBean(MultiOutboxWorker.class)
                        .doesNotHaveBean(OutboxWorker.class));
    }
}
