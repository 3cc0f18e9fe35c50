package dev.outboxjava.worker.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.memory.InMemoryOutboxStore;
import dev.outboxjava.core.port.PublishOutcome;
import dev.outboxjava.core.relay.RelayResult;
import dev.outboxjava.core.time.ManualClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The worker's meters")
class MetricsRelayListenerTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final ManualClock clock = ManualClock.startingAtEpochOf2024();
    private final OutboxEvent event = OutboxEvent.builder()
            .type("t")
            .destination("d")
            .payload(new byte[0])
            .clock(clock)
            .build();

    @Test
    void givenRelayOutcomes_thenTheCountersAndTimersAreRecorded() {
        MetricsRelayListener metrics = new MetricsRelayListener(registry);

        metrics.onPublished(event, clock.instant().plusMillis(250));
        metrics.onFailed(event, new PublishOutcome.Failed(event.id(), "timeout", true));
        metrics.onRetryScheduled(event, "timeout", clock.instant());
        metrics.onFailed(event, new PublishOutcome.Failed(event.id(), "too large", false));
        metrics.onDeadLettered(event, "too large", false);
        metrics.onFailed(event, new PublishOutcome.Failed(event.id(), "attempts spent", true));
        metrics.onDeadLettered(event, "attempts spent", true);
        metrics.onFailed(event, (PublishOutcome.Failed) PublishOutcome.unroutable(event.id(), "no exchange"));
        metrics.onRetryScheduled(event, "no exchange", clock.instant());
        metrics.onLeaseLost(event);
        metrics.onTick(new RelayResult(3, 1, 1, 1, 0, 0, Duration.ofMillis(40)));
        metrics.onTick(RelayResult.idle(Duration.ofMillis(1)));

        assertThat(registry.get("outbox.events.published").counter().count()).isEqualTo(1);
        assertThat(registry.get("outbox.events.failed")
                        .tag("reason", "retryable")
                        .counter()
                        .count())
                .isEqualTo(2);
        assertThat(registry.get("outbox.events.failed")
                        .tag("reason", "permanent")
                        .counter()
                        .count())
                .isEqualTo(1);
        assertThat(registry.get("outbox.events.failed")
                        .tag("reason", "unroutable")
                        .counter()
                        .count())
                .isEqualTo(1);
        assertThat(registry.get("outbox.events.dead_lettered").counter().count())
                .isEqualTo(2);
        assertThat(registry.get("outbox.events.lease_lost").counter().count()).isEqualTo(1);
        assertThat(registry.get("outbox.relay.batch.duration").timer().count())
                .as("idle ticks are not batches")
                .isEqualTo(1);
        assertThat(registry.get("outbox.events.commit_to_ack").timer().totalTime(TimeUnit.MILLISECONDS))
                .isEqualTo(250);
    }

    @Test
    void givenTheBacklogGauges_thenTheyShowTheLastPoll_notALiveQueryPerScrape() {
        InMemoryOutboxStore store = new InMemoryOutboxStore();
        BacklogGauges gauges = new BacklogGauges(store, clock, registry);
        store.append(event);
        clock.advance(Duration.ofSeconds(90));

        assertThat(registry.get("outbox.events.pending").gauge().value())
                .as("before the first poll")
                .isZero();
        gauges.poll();

        assertThat(registry.get("outbox.events.pending").gauge().value()).isEqualTo(1);
        assertThat(registry.get("outbox.events.oldest_pending_age").gauge().value())
                .isEqualTo(90.0);
        store.setAvailable(false);
        assertThat(registry.get("outbox.events.pending").gauge().value())
                .as("a scrape does not touch the store")
                .isEqualTo(1);
    }
}
