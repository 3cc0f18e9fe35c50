package dev.outboxjava.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.outboxjava.testkit.fixture.LocalPort;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The benchmark program runs end to end against the real PostgreSQL: scenario 6 on a tiny table,
 * a few seconds; scenario 7 for 5 s each way and layout at a low rate, the Kafka broker in process. It asserts
 * that rows with computed verdicts come out, never any figure.
 */
class BenchmarkSmokeIT {

    @Test
    void tableGrowthScenarioRunsAndPrintsARowWithAVerdict() throws Exception {
        // The benchmarks run against a real local database only (no container or embedded fallback).
        assumeTrue(LocalPort.isOpen("127.0.0.1", 5432, 1_000), "no PostgreSQL on 127.0.0.1:5432");
        BenchmarkConfig options = BenchmarkConfig.parse(
                new String[] {"--quick", "--scenarios", "6", "--sent-rows", "2000", "--batch-size", "10"});
        ByteArrayOutputStream header = new ByteArrayOutputStream();

        ResultTable table = BenchmarkMain.run(options, new PrintStream(header, true, StandardCharsets.UTF_8));

        assertThat(header.toString(StandardCharsets.UTF_8))
                .contains("PostgreSQL: ")
                .contains("cores");
        assertThat(table.rows()).anySatisfy(row -> {
            assertThat(row.scenario()).isEqualTo("6 table growth");
            assertThat(row.verdict()).isIn("met", "MISSED");
        });
    }

    @Test
    void longTransactionScenarioRunsEachLayoutWithAndWithoutTheHeldSnapshotAndSetsTheirRatiosSideBySide()
            throws Exception {
        assumeTrue(LocalPort.isOpen("127.0.0.1", 5432, 1_000), "no PostgreSQL on 127.0.0.1:5432");
        BenchmarkConfig options = BenchmarkConfig.parse(new String[] {
            "--scenarios",
            "7",
            "--held-seconds",
            "5",
            "--held-interval-seconds",
            "5",
            "--held-completion",
            "keep-sent",
            "--held-ordering",
            "none",
            "--rate",
            "500",
            "--relay-threads",
            "2",
            "--kafka-broker",
            "in-process"
        });

        ResultTable table =
                BenchmarkMain.run(options, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        table.print(System.out);

        for (String layout : new String[] {"in place", "append log"}) {
            List<ResultTable.Row> rows = table.rows().stream()
                    .filter(row -> row.scenario().startsWith("7 long tx, " + layout + ", keep sent, ordering none"))
                    .toList();
            assertThat(rows)
                    .extracting(ResultTable.Row::figure)
                    .containsExactly(
                            "5 s 1: snapshot held",
                            "p99 over the run: snapshot held",
                            "delivered while producing: snapshot held",
                            "kept up in every 5 s: snapshot held");
            assertThat(rows.get(0).value())
                    .contains("entries/scan")
                    .contains("dead")
                    .contains("lease");
            assertThat(rows.get(0).reference()).startsWith("no snapshot held: p50 ");
            assertThat(rows.subList(1, 4))
                    .extracting(ResultTable.Row::verdict)
                    .allSatisfy(verdict -> assertThat(verdict).isIn("met", "MISSED"));
        }
        assertThat(table.rows())
                .filteredOn(row -> row.scenario().contains("append log vs in place"))
                .extracting(ResultTable.Row::value)
                .hasSize(2)
                .allSatisfy(value -> assertThat(value).startsWith("append log: "));
    }
}
