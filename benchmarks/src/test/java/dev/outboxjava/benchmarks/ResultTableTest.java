package dev.outboxjava.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ResultTableTest {

    @Test
    void verdictsFollowTheMeasuredComparison() {
        ResultTable table = new ResultTable();
        table.target("s", "fast enough", "80 %", ">= 70 %", true, true);
        table.target("s", "too slow", "60 %", ">= 70 %", false, true);
        table.target("s", "never measured", "NaN", ">= 70 %", false, false);
        table.info("s", "no target", "1 rows/s");

        assertThat(table.rows()).extracting(ResultTable.Row::verdict).containsExactly("met", "MISSED", "n/a", "");
    }

    @Test
    void printsTheDiagnosticsAsAListAndTheResultsAsTheLastThingAMarkdownTableWithAlignedColumns() {
        ResultTable table = new ResultTable();
        table.info("1 ceiling", "keep sent", "36,000 rows/s");
        table.detail("3 worker drain", "  where the CPU goes", "PostgreSQL 57.0 us");
        table.target(
                "3 worker drain",
                "worker -> Kafka",
                "18,000 rows/s",
                "1 ceiling: 36,000 rows/s",
                "50.0 %",
                ">= 70 %",
                false,
                true);

        List<String> lines = print(table);

        assertThat(lines.subList(0, 4))
                .containsExactly("Diagnostics:", "", "- 3 worker drain, where the CPU goes: PostgreSQL 57.0 us", "");
        List<String> markdown = lines.subList(4, lines.size());
        assertThat(markdown).hasSize(4);
        assertThat(cells(markdown.get(0)))
                .containsExactly("scenario", "figure", "value", "reference (same run)", "ratio", "target", "verdict");
        assertThat(markdown.get(1)).matches("\\|(-+\\|){7}");
        assertThat(cells(markdown.get(2))).containsExactly("1 ceiling", "keep sent", "36,000 rows/s", "", "", "", "");
        assertThat(cells(markdown.get(3)))
                .containsExactly(
                        "3 worker drain",
                        "worker -> Kafka",
                        "18,000 rows/s",
                        "1 ceiling: 36,000 rows/s",
                        "50.0 %",
                        ">= 70 %",
                        "MISSED");
        assertThat(markdown).allSatisfy(line -> assertThat(line).hasSameSizeAs(markdown.get(0)));
        assertThat(markdown.get(3).indexOf("50.0 %")).isEqualTo(markdown.get(0).indexOf("| ratio") + 2);
    }

    @Test
    void aTableWithoutDiagnosticsIsTheTableAlone() {
        ResultTable table = new ResultTable();
        table.info("2 blog baseline", "per-row send", "1,556 rows/s");

        assertThat(print(table)).hasSize(3).first().asString().startsWith("| scenario");
    }

    @Test
    void aPipeOrALineBreakInACellCannotBreakTheTable() {
        ResultTable table = new ResultTable();
        table.info("s", "a | b", "line one\nline two");
        table.detail("s", "d", "x | y");

        List<String> lines = print(table);

        assertThat(lines).contains("- s, d: x \\| y");
        assertThat(lines.get(lines.size() - 1)).contains("a \\| b").contains("line one line two");
        assertThat(cells(lines.get(lines.size() - 1))).hasSize(7);
    }

    @Test
    void scenarioSixComparesTheGrownTableWithTheEmptyOneOfTheSameRuns() {
        ResultTable table = new ResultTable();
        // per run: 31 / 29 / 33 ms empty, 28 / 30 / 33 ms grown: ratios 0.90 / 1.03 / 1.00, median 1.00
        BenchmarkMain.growth(
                new TableGrowthScenario.Result(List.of(31.0, 29.0, 33.0), List.of(28.0, 30.0, 33.0), 10_000_000L, 90),
                BenchmarkConfig.parse(new String[0]),
                table);

        assertThat(table.rows()).singleElement().satisfies(row -> {
            assertThat(row.figure()).isEqualTo("lease of 1000, 10,000,000 sent rows");
            assertThat(row.value()).isEqualTo("30.00 ms");
            assertThat(row.reference()).isEqualTo("lease of 1000, 0 sent rows: 31.00 ms");
            assertThat(row.ratio()).isEqualTo("1.00x");
            assertThat(row.target()).isEqualTo("<= 2x");
            assertThat(row.verdict()).isEqualTo("met");
        });
    }

    @Test
    void scenarioFivePutsTheLibrarysTransactionsBesideTheHandWrittenInsertsOfTheSameRounds() {
        ResultTable table = new ResultTable();
        BenchmarkMain.producers(
                Map.of(
                        ProducerOverheadScenario.Mode.BUSINESS_ONLY, List.of(3000.0, 3000.0, 3000.0),
                        ProducerOverheadScenario.Mode.LIBRARY_APPEND, List.of(2000.0, 2000.0, 1800.0),
                        ProducerOverheadScenario.Mode.HAND_INSERT, List.of(2000.0, 2080.0, 2000.0)),
                BenchmarkConfig.parse(new String[0]),
                table);

        ResultTable.Row library = table.rows().stream()
                .filter(row -> row.figure().contains("OutboxWriter"))
                .findFirst()
                .orElseThrow();
        assertThat(library.value()).isEqualTo("2,000 tx/s");
        assertThat(library.reference()).isEqualTo("+ the same row by a hand-written INSERT: 2,000 tx/s");
        // per round 0 %, +4 %, +11.1 %: the median is +4.0 %
        assertThat(library.ratio()).startsWith("tx time +4.0 % ± ");
        assertThat(library.verdict()).isEqualTo("met");
    }

    private static List<String> print(ResultTable table) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        table.print(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        return bytes.toString(StandardCharsets.UTF_8).lines().toList();
    }

    /** The cells of a Markdown table line, trimmed; an escaped pipe stays inside its cell. */
    private static List<String> cells(String line) {
        String[] parts = line.substring(1, line.length() - 1).split("(?<!\\\\)\\|", -1);
        return Arrays.stream(parts).map(String::strip).toList();
    }
}
