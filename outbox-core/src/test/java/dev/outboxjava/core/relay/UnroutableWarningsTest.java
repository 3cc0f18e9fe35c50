package dev.outboxjava.core.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.RetryPolicy;
import dev.outboxjava.core.port.PublishOutcome;
import dev.outboxjava.core.time.ManualClock;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Unroutable destinations are warned about once per destination per interval")
class UnroutableWarningsTest {

    private final ManualClock clock = ManualClock.startingAtEpochOf2024();
    private final UnroutableWarnings warnings = new UnroutableWarnings(clock, RetryPolicy.ofDefaults());

    private OutboxEvent to(String destination) {
        return OutboxEvent.builder()
                .type("t")
                .destination(destination)
                .payload(new byte[0])
                .clock(clock)
                .build();
    }

    private boolean fail(String destination) {
        OutboxEvent event = to(destination);
        return warnings.failed(event, (PublishOutcome.Failed) PublishOutcome.unroutable(event.id(), "missing"));
    }

    @Test
    @DisplayName("the first failure of a destination warns, the next ones within the interval do not")
    void oncePerInterval() {
        assertThat(fail("orders")).isTrue();
        assertThat(fail("orders")).isFalse();
        clock.advance(UnroutableWarnings.INTERVAL.minusSeconds(1));
        assertThat(fail("orders")).isFalse();
        clock.advance(Duration.ofSeconds(1));
        assertThat(fail("orders")).as("a new interval").isTrue();
    }

    @Test
    @DisplayName("each destination has its own interval")
    void perDestination() {
        assertThat(fail("orders")).isTrue();
        assertThat(fail("payments")).isTrue();
        assertThat(fail("orders")).isFalse();
    }

    @Test
    @DisplayName("many destinations whose interval is over are forgotten, and warned about again when they recur")
    void forgetsOldDestinations() {
        for (int i = 0; i < 1_500; i++) {
            assertThat(fail("topic-" + i)).isTrue();
        }
        clock.advance(UnroutableWarnings.INTERVAL);
        assertThat(fail("fresh")).isTrue();
        assertThat(fail("topic-1")).isTrue();
        assertThat(fail("fresh")).isFalse();
    }
}
