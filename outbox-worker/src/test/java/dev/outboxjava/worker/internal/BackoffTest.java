package dev.outboxjava.worker.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class BackoffTest {

    private final Backoff backoff = new Backoff(Duration.ofMillis(500), Duration.ofSeconds(5));

    @Test
    void givenConsecutiveFailures_whenAskedForThePause_thenItDoublesFromTheInitialPause() {
        assertThat(backoff.delayAfter(1)).isEqualTo(Duration.ofMillis(500));
        assertThat(backoff.delayAfter(2)).isEqualTo(Duration.ofSeconds(1));
        assertThat(backoff.delayAfter(3)).isEqualTo(Duration.ofSeconds(2));
        assertThat(backoff.delayAfter(4)).isEqualTo(Duration.ofSeconds(4));
    }

    @Test
    void givenManyFailures_whenAskedForThePause_thenItStaysAtTheCap() {
        assertThat(backoff.delayAfter(5)).isEqualTo(Duration.ofSeconds(5));
        assertThat(backoff.delayAfter(1_000_000)).isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void givenNoFailure_thenNoPause() {
        assertThat(backoff.delayAfter(0)).isZero();
    }
}
