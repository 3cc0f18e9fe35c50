package dev.outboxjava.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.OutboxException;
import dev.outboxjava.core.memory.InMemoryOutboxStore;
import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.core.relay.RelayConfig;
import dev.outboxjava.core.time.ManualClock;
import dev.outboxjava.testkit.FaultyPublisher;
import dev.outboxjava.testkit.RecordingPublisher;
import dev.outboxjava.worker.internal.LogCapture;
import dev.outboxjava.worker.testsupport.SwitchablePublisher;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The outbox worker")
class OutboxWorkerTest {

    private static final Ordering PER_KEY = Ordering.perKey(Ordering.AfterDeadLetter.HOLD_KEY);

    private final InMemoryOutboxStore store = new InMemoryOutboxStore();
    private final RecordingPublisher recording = new RecordingPublisher();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private OutboxWorker worker;

    @AfterEach
    void stop() {
        if (worker != null) {
            worker.close();
        }
    }

    private OutboxWorker worker(FaultyPublisher publisher, OutboxWorkerConfig.Builder config) {
        worker = OutboxWorker.builder()
                .store(store)
                .publisher(publisher)
                .config(config.build())
                .meterRegistry(registry)
                .build();
        return worker;
    }

    private static OutboxWorkerConfig.Builder config() {
        return OutboxWorkerConfig.builder()
                .relay(new RelayConfig(50, Duration.ofSeconds(30)))
                .pollInterval(Duration.ofHours(1))
                .sweepInterval(Duration.ofHours(1))
                .shutdownTimeout(Duration.ofMillis(300));
    }

    private void append(int count) {
        List<OutboxEvent> events = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            events.add(OutboxEvent.builder()
                    .type("order.placed")
                    .destination("orders")
                    .payload("{}".getBytes(StandardCharsets.UTF_8))
                    .build());
        }
        store.append(events);
    }

    private long count(EventStatus status) {
        return store.countByStatus().get(status);
    }

    @Test
    void givenABacklog_whenStarted_thenTheFirstTickRunsAtOnce_andFullBatchesKeepTheRelayGoingUntilDrained() {
        append(420);
        worker(FaultyPublisher.wrapping(recording), config().relayThreads(2)).start();

        await().atMost(Duration.ofSeconds(20)).until(() -> count(EventStatus.SENT) == 420);
        assertThat(recording.publishedIds()).doesNotHaveDuplicates().hasSize(420);
        assertThat(registry.counter("outbox.events.published").count()).isEqualTo(420);
    }

    @Test
    void givenAnIdleRelayWithALongPollInterval_whenTheInProcessWakeUpIsSignalled_thenNewEventsArePublished() {
        worker(FaultyPublisher.wrapping(recording), config()).start();
        await().atMost(Duration.ofSeconds(10)).until(() -> recording.batchCount() == 0 && worker.isRunning());

        append(3);
        worker.wakeUp().signal();

        await().atMost(Duration.ofSeconds(10)).until(() -> count(EventStatus.SENT) == 3);
    }

    @Test
    void givenABatchThatDoesNotFinishInTheShutdownBound_whenClosed_thenItsEventsAreReleasedToPending() {
        FaultyPublisher hanging = FaultyPublisher.wrapping(recording).hang();
        append(10);
        worker(hanging, config()).start();
        await().atMost(Duration.ofSeconds(10)).until(() -> hanging.hungBatchCount() == 1);
        assertThat(count(EventStatus.IN_FLIGHT)).isEqualTo(10);

        worker.close();

        assertThat(count(EventStatus.IN_FLIGHT)).isZero();
        assertThat(count(EventStatus.PENDING)).isEqualTo(10);
        assertThat(store.all()).allSatisfy(event -> assertThat(event.attempts()).isZero());
        assertThat(worker.isRunning()).isFalse();
    }

    @Test
    void givenBatchesInFlight_whenClosedWithinTheBound_thenTheyFinishAndNothingNewIsLeased() {
        FaultyPublisher slow = FaultyPublisher.wrapping(recording).hang();
        append(110);
        worker(slow, config().shutdownTimeout(Duration.ofSeconds(20))).start();
        // draining is pipelined: the second full batch is leased and handed over before the first is marked
        await().atMost(Duration.ofSeconds(10)).until(() -> slow.hungBatchCount() == 2);

        Thread closer = new Thread(worker::close);
        closer.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> closer.getState() == Thread.State.TIMED_WAITING);
        slow.releaseHung();
        await().atMost(Duration.ofSeconds(20)).until(() -> !closer.isAlive());

        assertThat(count(EventStatus.SENT)).as("the batches in flight finished").isEqualTo(100);
        assertThat(count(EventStatus.PENDING)).as("no new lease after close").isEqualTo(10);
        assertThat(count(EventStatus.IN_FLIGHT)).isZero();
    }

    @Test
    void givenAStoppedWorker_whenStartedAgain_thenItPublishesWhatCameMeanwhile_withThePublisherKeptOpen() {
        worker(FaultyPublisher.wrapping(recording), config());
        append(5);
        worker.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> count(EventStatus.SENT) == 5);

        worker.stop();
        worker.stop();
        assertThat(worker.isRunning()).isFalse();
        assertThat(recording.isClosed())
                .as("stop keeps the publisher for the next start")
                .isFalse();
        append(3);
        worker.wakeUp().signal();
        assertThat(count(EventStatus.PENDING))
                .as("a stopped worker leases nothing")
                .isEqualTo(3);

        worker.start();
        assertThat(worker.isRunning()).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(() -> count(EventStatus.SENT) == 8);
        append(3);
        worker.wakeUp().signal();
        await().atMost(Duration.ofSeconds(10)).until(() -> count(EventStatus.SENT) == 11);
        assertThat(registry.counter("outbox.events.published").count()).isEqualTo(11);
    }

    @Test
    void givenARelayOrderingThatContradictsTheStores_whenBuilt_thenItNamesTheBuilderSetting() {
        assertThatThrownBy(() -> OutboxWorker.builder()
                        .store(store)
                        .publisher(recording)
                        .config(config().relay(new RelayConfig(
                                        50, Duration.ofSeconds(30), Ordering.perKey(Ordering.AfterDeadLetter.HOLD_KEY)))
                                .build())
                        .build())
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("OutboxWorkerConfig.builder().relay(...).ordering()")
                .hasMessageContaining("PostgresOutboxConfig.ordering");
    }

    @Test
    void givenAStoreWithPerKeyOrdering_whenTheRelayLeavesItAtNone_thenTheRelayFollowsTheStore() {
        Ordering perKey = Ordering.perKey(Ordering.AfterDeadLetter.CONTINUE);
        InMemoryOutboxStore ordered = new InMemoryOutboxStore(CompletionMode.KEEP_SENT, perKey);
        worker = OutboxWorker.builder()
                .store(ordered)
                .publisher(recording)
                .config(config().build())
                .build();

        assertThat(worker.config().relay().ordering()).isEqualTo(perKey);
    }

    @Test
    void givenAStoreWithPerKeyOrdering_whenNoRelaySettingsAreSet_thenTheRelayTakesThePerKeyDefaults() {
        OutboxWorkerConfig used = perKeyWorker(
                        OutboxWorkerConfig.builder().relayThreads(2).build())
                .config();

        assertThat(used.relay()).isEqualTo(RelayConfig.ofDefaults(PER_KEY));
        assertThat(used.relay().batchSize()).isEqualTo(RelayConfig.DEFAULT_PER_KEY_BATCH_SIZE);
        assertThat(used.relayThreads()).isEqualTo(2);
    }

    @Test
    void givenAStoreWithPerKeyOrdering_whenTheBatchSizeIsSet_thenTheRelayKeepsIt() {
        OutboxWorkerConfig used = perKeyWorker(OutboxWorkerConfig.builder()
                        .relay(new RelayConfig(RelayConfig.DEFAULT_BATCH_SIZE, Duration.ofSeconds(30)))
                        .build())
                .config();

        assertThat(used.relay().batchSize()).isEqualTo(RelayConfig.DEFAULT_BATCH_SIZE);
        assertThat(used.relay().ordering()).isEqualTo(PER_KEY);
    }

    private OutboxWorker perKeyWorker(OutboxWorkerConfig config) {
        worker = OutboxWorker.builder()
                .store(new InMemoryOutboxStore(CompletionMode.KEEP_SENT, PER_KEY))
                .publisher(recording)
                .config(config)
                .build();
        return worker;
    }

    @Test
    void givenAnUnorderedStore_whenNoRelaySettingsAreSet_thenTheRelayTakesTheUnorderedDefaults() {
        worker = OutboxWorker.builder()
                .store(store)
                .publisher(recording)
                .config(OutboxWorkerConfig.ofDefaults())
                .build();

        assertThat(worker.config().relay()).isEqualTo(RelayConfig.ofDefaults());
        assertThat(worker.config().relay().batchSize()).isEqualTo(RelayConfig.DEFAULT_BATCH_SIZE);
    }

    @Test
    void givenStartAndCloseCalledTwice_thenBothAreIdempotent_andTheWorkerCannotBeRestarted() {
        worker(FaultyPublisher.wrapping(recording), config());
        worker.start();
        worker.start();
        assertThat(worker.isRunning()).isTrue();

        worker.close();
        worker.close();

        assertThat(worker.isRunning()).isFalse();
        assertThat(recording.isClosed()).as("the worker closes the publisher").isTrue();
        assertThatThrownBy(worker::start).isInstanceOf(OutboxException.class).hasMessageContaining("closed");
    }

    @Test
    void givenTheStoreFailsForAWhile_thenTheLoopsStayAlive_andDrainAfterwards() {
        append(5);
        store.setAvailable(false);
        try (LogCapture outage = new LogCapture("dev.outboxjava.worker.outage")) {
            worker(
                            FaultyPublisher.wrapping(recording),
                            config().backoffInitial(Duration.ofMillis(20)).backoffMax(Duration.ofMillis(100)))
                    .start();
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> !outage.atLeast(Level.WARN).isEmpty());
            assertThat(worker.isRunning()).isTrue();

            store.setAvailable(true);

            await().atMost(Duration.ofSeconds(10)).until(() -> count(EventStatus.SENT) == 5);
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> outage.atLeast(Level.INFO).size() == 2);
            assertThat(outage.atLeast(Level.WARN)).singleElement().asString().startsWith("database unavailable");
        }
    }

    @Test
    void givenABrokerThatStopsAnswering_thenReadinessTurnsDownOnlyPastTheMaxBrokerOutage() {
        ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
        SwitchablePublisher broker = new SwitchablePublisher();
        worker = OutboxWorker.builder()
                .store(store)
                .publisher(broker)
                .clock(clock)
                .config(config().maxBrokerOutage(Duration.ofSeconds(30)).build())
                .meterRegistry(registry)
                .build();
        assertThat(worker.checkReadiness().healthy()).isTrue();

        broker.setDown(true);
        HealthCheck first = worker.checkReadiness();
        assertThat(first.healthy()).as(first.detail()).isTrue();
        assertThat(first.detail()).contains("broker: DOWN for 0s, within outbox.health.max.broker.outage=30s");
        clock.advance(Duration.ofSeconds(29));
        assertThat(worker.checkReadiness().healthy()).isTrue();
        clock.advance(Duration.ofSeconds(1));
        HealthCheck down = worker.checkReadiness();
        assertThat(down.healthy()).isFalse();
        assertThat(down.detail()).contains("broker: DOWN for 30s, over outbox.health.max.broker.outage=30s");

        // an answer ends the outage; the next failure starts a new one
        broker.setDown(false);
        assertThat(worker.checkReadiness().healthy()).isTrue();
        broker.setDown(true);
        clock.advance(Duration.ofMinutes(5));
        assertThat(worker.checkReadiness().healthy()).isTrue();
    }

    @Test
    void givenReadiness_thenItReportsTheStoreAndTheBroker() {
        worker(FaultyPublisher.wrapping(recording), config());
        assertThat(worker.checkReadiness().healthy()).isTrue();

        store.setAvailable(false);

        assertThat(worker.checkReadiness().healthy()).isFalse();
        assertThat(worker.checkReadiness().detail()).contains("database: DOWN").contains("broker: UP");
    }
}
