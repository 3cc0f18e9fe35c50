package dev.outboxjava.worker.observability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.RetryPolicy;
import dev.outboxjava.core.memory.InMemoryOutboxStore;
import dev.outboxjava.core.relay.Relay;
import dev.outboxjava.core.relay.RelayConfig;
import dev.outboxjava.core.relay.RelayListener;
import dev.outboxjava.core.relay.RelayResult;
import dev.outboxjava.core.time.ManualClock;
import dev.outboxjava.testkit.RecordingPublisher;
import dev.outboxjava.worker.OutboxWorker;
import dev.outboxjava.worker.OutboxWorkerConfig;
import dev.outboxjava.worker.internal.BacklogGauges;
import dev.outboxjava.worker.internal.LogCapture;
import dev.outboxjava.worker.testsupport.SwitchablePublisher;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** Log lines about an event carry the event in the MDC; the relay summarises instead of logging per event. */
@DisplayName("Structured logs")
class StructuredLogsTest {

    private static OutboxEvent event(String key, int maxAttempts) {
        return OutboxEvent.builder()
                .type("order.placed")
                .destination("orders")
                .key(key)
                .maxAttempts(maxAttempts)
                .payload("{}".getBytes(StandardCharsets.UTF_8))
                .build();
    }

    @Test
    @DisplayName("a retry and a dead letter are logged with event_id, event_type, key, attempt and outcome in the MDC")
    void eventLinesCarryTheEventInTheMdc() {
        ch.qos.logback.classic.Logger relayLogger =
                (ch.qos.logback.classic.Logger) LoggerFactory.getLogger(Relay.class);
        Level before = relayLogger.getLevel();
        relayLogger.setLevel(Level.DEBUG);
        try (LogCapture logs = new LogCapture(Relay.class.getName())) {
            InMemoryOutboxStore store = new InMemoryOutboxStore();
            OutboxEvent event = store.append(event("order-7", 2)).get(0);
            SwitchablePublisher publisher = new SwitchablePublisher();
            publisher.setDown(true);
            ManualClock clock = new ManualClock(Instant.now().plusSeconds(1));
            Relay relay = new Relay(
                    store,
                    publisher,
                    RelayConfig.ofDefaults(),
                    RetryPolicy.builder()
                            .initialDelay(Duration.ofSeconds(1))
                            .jitter(0)
                            .build(),
                    clock,
                    RelayListener.NONE);

            relay.runOnce();
            clock.advance(Duration.ofSeconds(5));
            relay.runOnce();

            List<ILoggingEvent> lines = logs.events();
            assertThat(lines).hasSize(2);
            Map<String, String> retry = lines.get(0).getMDCPropertyMap();
            assertThat(retry)
                    .containsEntry("event_id", event.id().toString())
                    .containsEntry("event_type", "order.placed")
                    .containsEntry("key", "order-7")
                    .containsEntry("attempt", "1")
                    .containsEntry("outcome", "retry_scheduled");
            Map<String, String> dead = lines.get(1).getMDCPropertyMap();
            assertThat(dead)
                    .containsEntry("event_id", event.id().toString())
                    .containsEntry("attempt", "2")
                    .containsEntry("outcome", "dead_lettered");
            assertThat(lines.get(1).getLevel()).isEqualTo(Level.WARN);
        } finally {
            relayLogger.setLevel(before);
        }
    }

    @Test
    @DisplayName("the summary is one line per interval with the counts and the lag; a quiet interval logs nothing")
    void summaryOncePerInterval() {
        AtomicLong nanos = new AtomicLong();
        RelaySummaryListener summary = new RelaySummaryListener(Duration.ofSeconds(60), nanos::get, () -> 2.5);
        OutboxEvent event = event("k", 3);
        RelayResult tick = RelayResult.idle(Duration.ofMillis(1));
        try (LogCapture logs = new LogCapture(RelaySummaryListener.class.getName())) {
            for (int i = 0; i < 40; i++) {
                summary.onPublished(event, Instant.now());
            }
            summary.onRetryScheduled(event, "broker down", Instant.now());
            summary.onDeadLettered(event, "bad", false);
            summary.onLeaseLost(event);
            nanos.set(Duration.ofSeconds(59).toNanos());
            summary.onTick(tick);
            assertThat(logs.atLeast(Level.INFO)).as("not yet due").isEmpty();

            nanos.set(Duration.ofSeconds(61).toNanos());
            summary.onTick(tick);
            summary.onTick(tick);

            assertThat(logs.atLeast(Level.INFO))
                    .containsExactly("relay summary (61.0s): published 40, retried 1, "
                            + "dead-lettered 1, lease lost 1, released 0, 2 ticks; lag 2.5s");
        }
        RelaySummaryListener quiet = new RelaySummaryListener(Duration.ofSeconds(60), nanos::get, () -> 0.0);
        try (LogCapture logs = new LogCapture(RelaySummaryListener.class.getName())) {
            nanos.addAndGet(Duration.ofSeconds(120).toNanos());
            quiet.onTick(tick);
            assertThat(logs.atLeast(Level.INFO))
                    .as("nothing happened, nothing waits")
                    .isEmpty();
        }
    }

    @Test
    @DisplayName("the summary's lag is the readiness lag (the oldest eligible event's wait): an old event waiting for "
            + "later is not lag")
    void summaryLagIsTheReadinessLag() {
        ManualClock clock = ManualClock.startingAtEpochOf2024();
        InMemoryOutboxStore store = new InMemoryOutboxStore();
        store.append(OutboxEvent.builder()
                .type("order.placed")
                .destination("orders")
                .payload(new byte[0])
                .clock(clock)
                .availableAt(clock.instant().plus(Duration.ofHours(2)))
                .build());
        clock.advance(Duration.ofHours(1));
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new BacklogGauges(store, clock, registry).poll();
        assertThat(registry.get("outbox.events.oldest_pending_age").gauge().value())
                .as("the age of the oldest pending event")
                .isEqualTo(3600.0);
        assertThat(store.backlog(clock.instant()).oldestEligibleWait(clock.instant()))
                .as("the lag readiness judges")
                .isZero();
        AtomicLong nanos = new AtomicLong();
        RelaySummaryListener summary = RelaySummaryListener.every(Duration.ofSeconds(60), registry, nanos::get);

        try (LogCapture logs = new LogCapture(RelaySummaryListener.class.getName())) {
            summary.onRetryScheduled(event("k", 3), "broker down", clock.instant());
            nanos.set(Duration.ofSeconds(60).toNanos());
            summary.onTick(RelayResult.idle(Duration.ofMillis(1)));

            assertThat(logs.atLeast(Level.INFO))
                    .containsExactly("relay summary (60.0s): published 0, retried 1, "
                            + "dead-lettered 0, lease lost 0, released 0, 1 ticks; lag 0.0s");
        }
    }

    @Test
    @DisplayName("a running worker logs the summary instead of a line per event")
    void workerLogsSummaries() {
        InMemoryOutboxStore store = new InMemoryOutboxStore();
        for (int i = 0; i < 25; i++) {
            store.append(event("order-" + i, 3));
        }
        try (LogCapture logs = new LogCapture(RelaySummaryListener.class.getName());
                OutboxWorker worker = OutboxWorker.builder()
                        .store(store)
                        .publisher(new RecordingPublisher())
                        .config(OutboxWorkerConfig.builder()
                                .logSummaryInterval(Duration.ofMillis(200))
                                .pollInterval(Duration.ofMillis(50))
                                .build())
                        .build()) {
            worker.start();
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> logs.atLeast(Level.INFO).stream().anyMatch(line -> line.contains("published 25,")));
        }
    }
}
