package dev.outboxjava.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ProducerOverheadScenarioTest {

    @Test
    void theModesTakeTurnsIn48RoundsOfShortPhasesPerRun() {
        BenchmarkConfig defaults = BenchmarkConfig.parse(new String[0]);

        assertThat(ProducerOverheadScenario.rounds(defaults)).isEqualTo(144);
        assertThat(ProducerOverheadScenario.phase(defaults)).isEqualTo(Duration.ofMillis(250));
        assertThat(ProducerOverheadScenario.rounds(BenchmarkConfig.parse(new String[] {"--runs", "1"})))
                .isEqualTo(48);
    }
}
