package dev.outboxjava.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ResultTableTest {

    @Test
    void verdictsFollowTheMeasuredComparison() {
        ResultTable table = new ResultTable();
        table.target("s", "fast enough", "80 %", ">= 70 %", true, true);
        table.target("s", "too slow", "60 %", ">= 70 %", false, true);
        table.target("s", "never measured", "NaN", ">= 70 %", false, false);

        assertThat(table.rows()).extracting(ResultTable.Row::verdict).containsExactly("met", "MISSED", "n/a");
    }

    @Test
    void printsOneMarkdownTableWithAlignedColumns() {
        ResultTable table = new ResultTable();
        table.info("1 ceiling", "keep sent", "36,000 rows/s");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        table.print(new PrintStream(bytes, true, StandardCharsets.UTF_8));

        String[] lines = bytes.toString(StandardCharsets.UTF_8).split("\n");
        assertThat(lines).hasSize(3);
        assertThat(lines[0]).startsWith("| scenario");
        assertThat(lines[2]).contains("36,000 rows/s");
        assertThat(lines[0]).hasSameSizeAs(lines[2]);
    }
}
