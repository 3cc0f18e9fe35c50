package dev.outboxjava.core.time;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("ManualClock")
class ManualClockTest {

    private static final Instant START = Instant.parse("2024-01-01T00:00:00Z");

    @Test
    @DisplayName("stands still until told to move")
    void standsStill() {
        ManualClock clock = new ManualClock(START);
        assertThat(clock.instant()).isEqualTo(START);
        assertThat(clock.instant()).isEqualTo(START);
        assertThat(clock.millis()).isEqualTo(START.toEpochMilli());
        assertThat(clock.getZone()).isEqualTo(ZoneOffset.UTC);
    }

    @Test
    @DisplayName("advances by a duration, forward or back, and can be set")
    void advancesAndSets() {
        ManualClock clock = ManualClock.startingAtEpochOf2024();
        assertThat(clock.instant()).isEqualTo(START);

        clock.advance(Duration.ofMinutes(5));
        assertThat(clock.instant()).isEqualTo(START.plusSeconds(300));
        clock.advance(Duration.ofSeconds(-60));
        assertThat(clock.instant()).isEqualTo(START.plusSeconds(240));
        clock.set(START.plusSeconds(1));
        assertThat(clock.instant()).isEqualTo(START.plusSeconds(1));
    }

    @Test
    @DisplayName("a view in another zone shares the same time")
    void zoneViewSharesTime() {
        ManualClock clock = new ManualClock(START);
        Clock paris = clock.withZone(ZoneId.of("Europe/Paris"));

        clock.advance(Duration.ofHours(1));

        assertThat(paris.instant()).isEqualTo(START.plusSeconds(3600));
        assertThat(paris.getZone()).isEqualTo(ZoneId.of("Europe/Paris"));
    }
}
