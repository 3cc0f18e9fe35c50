package dev.outboxjava.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.outboxjava.testkit.fixture.LocalPort;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The benchmark program runs end to end against the real PostgreSQL: scenario 6 on a tiny table,
 * a few seconds. It asserts that a row with a computed verdict comes out, never any figure.
 */
class BenchmarkSmokeIT {

    @Test
    void tableGrowthScenarioRunsAndPrintsARowWithAVerdict() throws Exception {
        // The benchmarks run against a real local database only (no container or embedded fallback).
        assumeTrue(LocalPort.isOpen("127.0.0.1", 5432, 1_000), "no PostgreSQL on 127.0.0.1:5432");
        BenchmarkOptions options = BenchmarkOptions.parse(new String[] {"--quick", "--scenarios", "6",
            "--sent-rows", "2000", "--batch-size", "10"});
        ByteArrayOutputStream header = new ByteArrayOutputStream();

        ResultTable table = BenchmarkMain.run(options, new PrintStream(header, true, StandardCharsets.UTF_8));

        assertThat(header.toString(StandardCharsets.UTF_8)).contains("PostgreSQL: ").contains("cores");
        assertThat(table.rows()).anySatisfy(row -> {
            assertThat(row.scenario()).isEqualTo("6 table growth");
            assertThat(row.verdict()).isIn("met", "MISSED");
        });
    }
}
