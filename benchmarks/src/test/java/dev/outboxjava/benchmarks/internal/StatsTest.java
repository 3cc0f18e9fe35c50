package dev.outboxjava.benchmarks.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StatsTest {

    @Test
    void quantilesInterpolateBetweenTheNearestRanks() {
        List<Double> values = List.of(4.0, 1.0, 3.0, 2.0, 5.0);

        assertThat(Stats.quantile(values, 0.0)).isEqualTo(1.0);
        assertThat(Stats.quantile(values, 0.25)).isEqualTo(2.0);
        assertThat(Stats.quantile(values, 0.5)).isEqualTo(Stats.median(values));
        assertThat(Stats.quantile(values, 0.875)).isEqualTo(4.5);
        assertThat(Stats.quantile(values, 1.0)).isEqualTo(5.0);
        assertThat(Stats.quantile(List.of(), 0.5)).isNaN();
    }

    @Test
    void theMedianStandardErrorShrinksWithTheSquareRootOfTheCountAndIgnoresWildValues() {
        List<Double> hundred = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            hundred.add((double) (i % 10)); // interquartile range 2.0 .. 7.0 within each ten
        }
        List<Double> fourHundred = new ArrayList<>();
        for (int k = 0; k < 4; k++) {
            fourHundred.addAll(hundred);
        }
        double error = Stats.medianStandardError(hundred);

        assertThat(error).isCloseTo(1.2533 * 5.0 / 1.349 / 10, within(0.02));
        assertThat(Stats.medianStandardError(fourHundred)).isCloseTo(error / 2, within(0.01));
        List<Double> wild = new ArrayList<>(hundred);
        wild.set(0, 1_000.0);
        wild.set(1, -1_000.0);
        assertThat(Stats.medianStandardError(wild)).isCloseTo(error, within(0.02));
    }
}
