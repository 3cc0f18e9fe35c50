package dev.outboxjava.worker.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import com.google.inject.Guice;
import com.google.inject.Injector;
import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.RetryPolicy;
import dev.outboxjava.core.relay.Relay;
import dev.outboxjava.postgres.WakeUpMode;
import dev.outboxjava.rabbitmq.RabbitMqPublisherConfig;
import dev.outboxjava.worker.OutboxWorker;
import dev.outboxjava.worker.OutboxWorkerConfig;
import dev.outboxjava.worker.OutboxWorkerModule;
import dev.outboxjava.worker.PostgresStoreModule;
import dev.outboxjava.worker.RabbitMqPublisherModule;
import dev.outboxjava.worker.internal.LogCapture;
import dev.outboxjava.worker.testsupport.WorkerFixture;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A destination that does not exist, seen by an operator: the worker (real PostgreSQL, real RabbitMQ)
 * warns once for it, counts every attempt as unroutable, and dead-letters its events after the small
 * unroutable budget, while the other events of the same batches arrive once each.
 */
@DisplayName("The worker and an exchange that does not exist")
class UnroutableDestinationIT {

    @RegisterExtension
    static final WorkerFixture fixture = new WorkerFixture("worker-unroutable-it");

    @Test
    @DisplayName("is warned about once with the destination, an event id and the setting; its events are dead-lettered "
            + "after 3 attempts, each counted as unroutable; the valid events of the same batches arrive once each")
    void loudAndFast() throws Exception {
        String missing = "outbox-it-missing-" + UUID.randomUUID();
        List<OutboxEvent> lost = fixture.table().events(0, 5, missing, "order.placed");
        List<OutboxEvent> valid =
                fixture.table().events(5, 105, fixture.destination().exchange(), "order.placed");
        List<OutboxEvent> all = new ArrayList<>(valid.subList(0, 50));
        all.addAll(lost);
        all.addAll(valid.subList(50, 100));
        try (Connection connection = fixture.postgres().dataSource().getConnection()) {
            connection.setAutoCommit(false);
            fixture.table().store.writer().append(connection, all);
            connection.commit();
        }
        DataSource database = PlainDataSources.simple(
                fixture.postgres().jdbcUrl(),
                fixture.postgres().user(),
                fixture.postgres().password());
        Injector injector = Guice.createInjector(
                new OutboxWorkerModule(OutboxWorkerConfig.builder()
                        .pollInterval(Duration.ofMillis(200))
                        .retryPolicy(RetryPolicy.builder()
                                .initialDelay(Duration.ofMillis(200))
                                .jitter(0)
                                .build())
                        .build()),
                new PostgresStoreModule(database, PlainDataSources.keepSent(fixture.table().name, WakeUpMode.NONE)),
                new RabbitMqPublisherModule(RabbitMqPublisherConfig.builder()
                        .uri(fixture.rabbit().uri())
                        .connectionName("outbox-worker-unroutable-it-"
                                + UUID.randomUUID().toString().substring(0, 8))
                        .build()));

        try (LogCapture relayLog = new LogCapture(Relay.class.getName());
                OutboxWorker worker = injector.getInstance(OutboxWorker.class)) {
            worker.start();
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> fixture.table().count(EventStatus.FAILED) == lost.size());
            await().atMost(Duration.ofSeconds(30)).until(() -> fixture.table().count(EventStatus.SENT) == valid.size());

            for (OutboxEvent event : lost) {
                OutboxEvent dead = fixture.table().store.find(event.id()).orElseThrow();
                assertThat(dead.attempts()).isEqualTo(RetryPolicy.DEFAULT_UNROUTABLE_MAX_ATTEMPTS);
                assertThat(dead.lastError())
                        .hasValueSatisfying(
                                error -> assertThat(error).contains("exchange '" + missing + "' does not exist"));
            }
            MeterRegistry registry = injector.getInstance(MeterRegistry.class);
            assertThat(registry.get("outbox.events.failed")
                            .tag("reason", "unroutable")
                            .counter()
                            .count())
                    .isEqualTo(lost.size() * RetryPolicy.DEFAULT_UNROUTABLE_MAX_ATTEMPTS);

            List<String> warnings = relayLog.atLeast(Level.WARN).stream()
                    .filter(line -> line.contains("is unroutable"))
                    .toList();
            assertThat(warnings)
                    .as("one warning per destination per minute")
                    .singleElement()
                    .satisfies(line -> assertThat(line)
                            .contains("'" + missing + "'")
                            .contains("outbox.retry.unroutable.max.attempts")
                            .containsPattern(lost.stream()
                                    .map(e -> e.id().toString())
                                    .reduce((a, b) -> a + "|" + b)
                                    .orElseThrow()));
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> fixture.inbox().ids().size() == valid.size());
        assertThat(fixture.inbox().get().size())
                .as("no neighbour published twice")
                .isEqualTo(valid.size());
    }
}
