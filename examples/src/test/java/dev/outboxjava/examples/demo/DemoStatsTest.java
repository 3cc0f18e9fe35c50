package dev.outboxjava.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.time.ManualClock;
import dev.outboxjava.examples.orders.OrderEvents;
import dev.outboxjava.examples.orders.OrderPlaced;
import dev.outboxjava.examples.shipping.Applied;
import dev.outboxjava.examples.shipping.ReceivedEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The demo's statistics")
class DemoStatsTest {

    private static final Instant NOW = Instant.parse("2026-11-21T12:00:00Z");

    @Test
    @DisplayName("time each applied event from its placedAt to the moment it was applied, and count duplicates apart")
    void latencyAndCounts() {
        ManualClock clock = new ManualClock(NOW);
        DemoStats stats = new DemoStats(clock);
        List<ReceivedEvent> applied = new ArrayList<>();
        for (int millis = 1; millis <= 100; millis++) {
            applied.add(placedAgo(Duration.ofMillis(millis)));
        }

        stats.onApplied(new Applied(applied, List.of(placedAgo(Duration.ofSeconds(5)))));

        assertThat(stats.consumed()).isEqualTo(100);
        assertThat(stats.duplicates()).isEqualTo(1);
        assertThat(stats.latencyMillis(50)).isCloseTo(50.0, within(0.1));
        assertThat(stats.latencyMillis(99)).isCloseTo(99.0, within(0.1));
        assertThat(stats.firstConsumedAtNanos()).isNotZero();
    }

    @Test
    @DisplayName("report zero latency before anything was applied")
    void empty() {
        DemoStats stats = new DemoStats(new ManualClock(NOW));

        assertThat(stats.latencyMillis(99)).isZero();
        assertThat(stats.firstConsumedAtNanos()).isZero();
    }

    private static ReceivedEvent placedAgo(Duration age) {
        OrderPlaced order = new OrderPlaced(UUID.randomUUID(), "c", "sku-1", 1, 1, NOW.minus(age));
        OutboxEvent event = new OrderEvents("orders").placed(order);
        return new ReceivedEvent(event.id(), event.type(), event.key(), event.payload());
    }
}
