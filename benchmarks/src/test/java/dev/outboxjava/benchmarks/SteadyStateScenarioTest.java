package dev.outboxjava.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.benchmarks.SteadyStateScenario.Latency;
import dev.outboxjava.benchmarks.SteadyStateScenario.WakeUp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SteadyStateScenarioTest {

    @Test
    void everyRoundMeasuresEachWakeUpOnceAndNoWakeUpAlwaysFollowsTheSameOne() {
        Map<WakeUp, Set<WakeUp>> predecessors = new EnumMap<>(WakeUp.class);
        List<WakeUp> sequence = new ArrayList<>();
        for (int round = 0; round < 4; round++) {
            List<WakeUp> order = SteadyStateScenario.roundOrder(round);
            assertThat(order).containsExactlyInAnyOrder(WakeUp.values());
            sequence.addAll(order);
        }
        for (int i = 1; i < sequence.size(); i++) {
            predecessors
                    .computeIfAbsent(sequence.get(i), w -> EnumSet.noneOf(WakeUp.class))
                    .add(sequence.get(i - 1));
        }

        assertThat(predecessors).hasSize(WakeUp.values().length);
        predecessors.forEach((wakeUp, before) -> assertThat(before)
                .as("wake-ups measured right before " + wakeUp)
                .hasSizeGreaterThanOrEqualTo(2));
    }

    @Test
    void theCostIsMeasuredIn32RoundsOfShortPhasesPerRun() {
        BenchmarkConfig defaults = BenchmarkConfig.parse(new String[0]);
        BenchmarkConfig quick = BenchmarkConfig.parse(new String[] {"--quick"});

        assertThat(SteadyStateScenario.producerCostRounds(defaults)).isEqualTo(96);
        assertThat(SteadyStateScenario.producerCostPhase(defaults)).isEqualTo(Duration.ofMillis(250));
        assertThat(SteadyStateScenario.producerCostPhase(
                        BenchmarkConfig.parse(new String[] {"--producer-seconds", "10"})))
                .isEqualTo(Duration.ofMillis(625));
        assertThat(SteadyStateScenario.producerCostPhase(
                        BenchmarkConfig.parse(new String[] {"--producer-seconds", "1"})))
                .as("never shorter than 100 ms")
                .isEqualTo(Duration.ofMillis(100));
        assertThat(SteadyStateScenario.producerCostRounds(quick)).isEqualTo(32);
    }

    @Test
    void theReportedRunIsTheOneWithTheMedianP99AndOfTwoTheWorse() {
        Latency fast = latency(9.0);
        Latency middle = latency(12.0);
        Latency slow = latency(30.0);

        assertThat(SteadyStateScenario.medianByP99(List.of(slow, fast, middle))).isSameAs(middle);
        assertThat(SteadyStateScenario.medianByP99(List.of(fast, slow))).isSameAs(slow);
        assertThat(SteadyStateScenario.medianByP99(List.of(fast))).isSameAs(fast);
    }

    private static Latency latency(double p99) {
        return new Latency(p99 / 3, p99 / 2, p99, p99 * 2, 1_000, 0, 10, 0, true, 2_000, "", "", "");
    }
}
