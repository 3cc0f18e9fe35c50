package dev.outboxjava.benchmarks;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The one table a run prints: every figure, and for the ones the issue sets a target for, the target
 * and whether this run met it. Verdicts are computed from the measured figures, never written in.
 */
public final class ResultTable {

    /** One line of the table. */
    public record Row(String scenario, String figure, String value, String target, String verdict) {
    }

    private final List<Row> rows = new ArrayList<>();

    /** A figure without a target. */
    public void info(String scenario, String figure, String value) {
        rows.add(new Row(scenario, figure, value, "", ""));
    }

    /** A figure with a target; {@code met} decides the verdict. NaN figures are "not measured". */
    public void target(String scenario, String figure, String value, String target, boolean met, boolean measured) {
        rows.add(new Row(scenario, figure, value, target, !measured ? "n/a" : met ? "met" : "MISSED"));
    }

    public List<Row> rows() {
        return List.copyOf(rows);
    }

    /** Prints the table as Markdown (readable in a terminal, pasteable into BENCHMARKS.md). */
    public void print(PrintStream out) {
        String[] header = {"scenario", "figure", "value", "target", "verdict"};
        int[] width = new int[header.length];
        for (int i = 0; i < header.length; i++) {
            width[i] = header[i].length();
        }
        for (Row row : rows) {
            String[] cells = cells(row);
            for (int i = 0; i < cells.length; i++) {
                width[i] = Math.max(width[i], cells[i].length());
            }
        }
        out.println(line(header, width));
        StringBuilder rule = new StringBuilder("|");
        for (int w : width) {
            rule.append("-".repeat(w + 2)).append('|');
        }
        out.println(rule);
        for (Row row : rows) {
            out.println(line(cells(row), width));
        }
    }

    private static String[] cells(Row row) {
        return new String[] {row.scenario(), row.figure(), row.value(), row.target(), row.verdict()};
    }

    private static String line(String[] cells, int[] width) {
        StringBuilder line = new StringBuilder("|");
        for (int i = 0; i < cells.length; i++) {
            line.append(' ').append(String.format(Locale.ROOT, "%-" + width[i] + "s", cells[i])).append(" |");
        }
        return line.toString();
    }
}
