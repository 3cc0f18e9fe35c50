package dev.outboxjava.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

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
                        tuple(1, 1000), tuple(2, 1000), tuple(4, 1000), tuple(1, 500), tuple(2, 500), tuple(4, 500));
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
}
