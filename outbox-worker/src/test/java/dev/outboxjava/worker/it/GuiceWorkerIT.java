package dev.outboxjava.worker.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.inject.Guice;
import com.google.inject.Injector;
import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.postgres.PostgresSchema;
import dev.outboxjava.postgres.WakeUpMode;
import dev.outboxjava.rabbitmq.RabbitMqPublisherConfig;
import dev.outboxjava.worker.OutboxWakeUp;
import dev.outboxjava.worker.OutboxWorker;
import dev.outboxjava.worker.OutboxWorkerConfig;
import dev.outboxjava.worker.OutboxWorkerModule;
import dev.outboxjava.worker.PostgresStoreModule;
import dev.outboxjava.worker.RabbitMqPublisherModule;
import dev.outboxjava.worker.testsupport.OutboxTable;
import dev.outboxjava.worker.testsupport.WorkerFixture;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The library way: the user's own injector with the worker module, the PostgreSQL store module and a
 * publisher module. The relay polls only once an hour here, so a delivery proves the wake-up path.
 */
@DisplayName("The worker in the user's own injector")
class GuiceWorkerIT {

    @RegisterExtension
    static final WorkerFixture fixture = new WorkerFixture("worker-guice-it");

    private Injector injector(WakeUpMode wakeUp) {
        DataSource database = PlainDataSources.simple(
                fixture.postgres().jdbcUrl(),
                fixture.postgres().user(),
                fixture.postgres().password());
        return Guice.createInjector(
                new OutboxWorkerModule(OutboxWorkerConfig.builder()
                        .pollInterval(Duration.ofHours(1))
                        .build()),
                new PostgresStoreModule(database, PlainDataSources.keepSent(fixture.table().name, wakeUp)),
                new RabbitMqPublisherModule(RabbitMqPublisherConfig.builder()
                        .uri(fixture.rabbit().uri())
                        .connectionName("outbox-worker-guice-it-"
                                + UUID.randomUUID().toString().substring(0, 8))
                        .build()));
    }

    private void awaitDelivered(List<UUID> ids) {
        await().atMost(Duration.ofMinutes(1))
                .untilAsserted(() -> assertThat(fixture.inbox().ids())
                        .containsAll(ids.stream().map(UUID::toString).collect(Collectors.toSet())));
    }

    @Test
    @DisplayName("an appender in the same JVM wakes the idle relay with OutboxWakeUp after its commit")
    void inProcessWakeUp() throws Exception {
        Injector injector = injector(WakeUpMode.IN_PROCESS);
        List<UUID> before = fixture.table().append(10, fixture.destination().exchange(), "order.placed");
        try (OutboxWorker worker = injector.getInstance(OutboxWorker.class)) {
            worker.start();
            awaitDelivered(before); // the first tick runs at once on start
            await().atMost(Duration.ofSeconds(30)).until(() -> fixture.table().count(EventStatus.SENT) == 10);

            List<UUID> after = fixture.table().append(25, fixture.destination().exchange(), "order.placed");
            injector.getInstance(OutboxWakeUp.class).signal();

            awaitDelivered(after);
        }
        assertThat(fixture.table().count(EventStatus.IN_FLIGHT)).isZero();
    }

    @Test
    @DisplayName("a producer's TransactionalOutbox notifies after commit and wakes the idle relay through the "
            + "store module's listener (the default, no trigger)")
    void notifyAfterCommitWakeUp() throws Exception {
        OutboxTable table = fixture.table();
        assertIdleRelayWokenBy(() -> table
                .store
                .transactional()
                .inTransaction(
                        connection -> table.events(0, 25, fixture.destination().exchange(), "order.placed"))
                .stream()
                .map(OutboxEvent::id)
                .toList());
    }

    @Test
    @DisplayName("the table's NOTIFY trigger wakes the idle relay through the store module's listener")
    void triggerNotifyWakeUp() throws Exception {
        PostgresSchema.apply(
                fixture.postgres().dataSource(),
                fixture.table().store.config().toBuilder()
                        .wakeUpMode(WakeUpMode.TRIGGER_NOTIFY)
                        .build());
        assertIdleRelayWokenBy(
                () -> fixture.table().append(25, fixture.destination().exchange(), "order.placed"));
    }

    /** Starts a NOTIFY-listening worker whose poll interval is an hour, appends once it idles, awaits delivery. */
    private void assertIdleRelayWokenBy(Callable<List<UUID>> append) throws Exception {
        Injector injector = injector(WakeUpMode.NOTIFY_AFTER_COMMIT);
        try (OutboxWorker worker = injector.getInstance(OutboxWorker.class)) {
            worker.start();
            await().atMost(Duration.ofSeconds(30)).until(worker::isRunning);
            Thread.sleep(1000); // let the idle relay settle into its one-hour wait and the listener LISTEN

            awaitDelivered(append.call());
        }
    }
}
