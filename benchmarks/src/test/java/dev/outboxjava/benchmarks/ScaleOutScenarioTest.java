package dev.outboxjava.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.assertj.core.api.Assertions.within;

import dev.outboxjava.core.Ordering;
import dev.outboxjava.postgres.StoreLayout;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Scenario 8's shapes")
class ScaleOutScenarioTest {

    private static final Ordering.Mode NONE = Ordering.Mode.NONE;
    private static final Ordering.Mode PER_KEY = Ordering.Mode.PER_KEY;

    @Test
    @DisplayName("scale out each ordering at its own default batch, and list every shape once")
    void processShapesUseEachOrderingsDefaultBatch() {
        List<ScaleOutScenario.Shape> shapes = ScaleOutScenario.shapes(StoreLayout.APPEND_LOG, 1);

        assertThat(shapes.subList(0, 6))
                .extracting(ScaleOutScenario.Shape::processes, ScaleOutScenario.Shape::batchSize)
                .containsExactly(
                        tuple(1, 1000), tuple(1, 500), tuple(2, 1000), tuple(2, 500), tuple(4, 1000), tuple(4, 500));
        assertThat(shapes).doesNotHaveDuplicates();
        assertThat(shapes)
                .filteredOn(shape -> shape.processes() == 1 && shape.isLibraryDefault())
                .containsExactly(
                        new ScaleOutScenario.Shape(1, 1, 1000, NONE, StoreLayout.APPEND_LOG),
                        new ScaleOutScenario.Shape(1, 1, 500, PER_KEY, StoreLayout.APPEND_LOG));
    }

    @Test
    @DisplayName("compare per key at its default batch with no ordering at its default, else at the same batch")
    void perKeyCostIsAgainstTheUnorderedShapeAUserWouldRun() {
        List<ScaleOutScenario.Shape> shapes = ScaleOutScenario.shapes(StoreLayout.APPEND_LOG, 2);

        assertThat(shapes)
                .filteredOn(shape -> shape.ordering() == PER_KEY)
                .allSatisfy(shape -> assertThat(shapes).contains(shape.unordered()));
        assertThat(new ScaleOutScenario.Shape(4, 2, 500, PER_KEY, StoreLayout.APPEND_LOG).unordered())
                .isEqualTo(new ScaleOutScenario.Shape(4, 2, 1000, NONE, StoreLayout.APPEND_LOG));
        assertThat(new ScaleOutScenario.Shape(1, 2, 1000, PER_KEY, StoreLayout.APPEND_LOG).unordered())
                .isEqualTo(new ScaleOutScenario.Shape(1, 2, 1000, NONE, StoreLayout.APPEND_LOG));
    }

    @Test
    @DisplayName("drain each per-key shape right after or before the unordered one it is compared with, in turns")
    void comparedShapesDrainBackToBack() {
        List<ScaleOutScenario.Shape> shapes = ScaleOutScenario.shapes(StoreLayout.APPEND_LOG, 1);

        for (int run = 0; run < 2; run++) {
            List<ScaleOutScenario.Shape> order = ScaleOutScenario.inRunOrder(shapes, run);
            for (int processes : new int[] {1, 2, 4}) {
                ScaleOutScenario.Shape perKey =
                        new ScaleOutScenario.Shape(processes, 1, 500, PER_KEY, StoreLayout.APPEND_LOG);
                int at = order.indexOf(perKey);
                int unorderedAt = order.indexOf(perKey.unordered());
                assertThat(at - unorderedAt)
                        .as("run %d, %d processes", run, processes)
                        .isEqualTo(run % 2 == 0 ? 1 : -1);
            }
        }
    }

    @Test
    @DisplayName("per-key ordering's cost is the median of the per-run ratios of the two rates, not of their medians")
    void costIsTheMedianOfPerRunRatios() {
        ScaleOutScenario.Shape shape = new ScaleOutScenario.Shape(1, 1, 500, PER_KEY, StoreLayout.APPEND_LOG);
        // the database drifts from run to run; each per-key drain is 10 % slower than the unordered one beside it
        ScaleOutScenario.Drain unordered =
                new ScaleOutScenario.Drain(shape.unordered(), List.of(20_000.0, 30_000.0, 10_000.0), 0.8);
        ScaleOutScenario.Drain perKey = new ScaleOutScenario.Drain(shape, List.of(18_000.0, 27_000.0, 9_000.0), 0.5);

        assertThat(perKey.costAgainst(unordered)).isCloseTo(0.10, within(1e-9));
        assertThatThrownBy(() -> perKey.costAgainst(new ScaleOutScenario.Drain(shape, List.of(1.0), 1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("runs differ");
    }
}
