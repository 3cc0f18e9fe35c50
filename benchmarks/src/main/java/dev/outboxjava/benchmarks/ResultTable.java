package dev.outboxjava.benchmarks;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What a run prints at its end: the diagnostics (where the time and the CPU went) as a list, then
 * the results as one Markdown table, ready to paste into BENCHMARKS.md. Each result that is compared
 * with something names its reference — a figure measured in the same run, never a stored one — and
 * the ratio between them; the results a target is set for carry the target and whether this run
 * met it. Verdicts are computed from the measured figures, never written in.
 */
public final class ResultTable {

    /** The table's header, in column order. */
    static final List<String> HEADER =
            List.of("scenario", "figure", "value", "reference (same run)", "ratio", "target", "verdict");

    /**
     * One line of the results table.
     *
     * @param reference what {@code value} is compared with, measured in the same run; empty for none
     * @param ratio     {@code value} against {@code reference}; empty for none
     * @param target    the target set for this figure; empty for none
     * @param verdict   {@code met}, {@code MISSED}, {@code n/a} (not measured) or empty (no target)
     */
    public record Row(
            String scenario,
            String figure,
            String value,
            String reference,
            String ratio,
            String target,
            String verdict) {}

    /** One diagnostic line: printed above the table, never compared with a target. */
    public record Detail(String scenario, String figure, String value) {}

    private final List<Row> rows = new ArrayList<>();
    private final List<Detail> details = new ArrayList<>();

    /** A figure on its own (it may be another row's reference). */
    public void info(String scenario, String figure, String value) {
        rows.add(new Row(scenario, figure, value, "", "", "", ""));
    }

    /** A figure beside a reference measured in the same run, without a target. */
    public void compare(String scenario, String figure, String value, String reference, String ratio) {
        rows.add(new Row(scenario, figure, value, reference, ratio, "", ""));
    }

    /** A figure with a target and no reference; {@code met} decides the verdict. */
    public void target(String scenario, String figure, String value, String target, boolean met, boolean measured) {
        target(scenario, figure, value, "", "", target, met, measured);
    }

    /**
     * A figure beside a reference measured in the same run, with a target on their ratio; {@code met}
     * decides the verdict, and a figure not {@code measured} is {@code n/a} whatever {@code met} says.
     */
    public void target(
            String scenario,
            String figure,
            String value,
            String reference,
            String ratio,
            String target,
            boolean met,
            boolean measured) {
        rows.add(
                new Row(scenario, figure, value, reference, ratio, target, !measured ? "n/a" : met ? "met" : "MISSED"));
    }

    /** A diagnostic line (where a tick's time or the CPU went, collector pauses). */
    public void detail(String scenario, String figure, String value) {
        details.add(new Detail(scenario, figure, value));
    }

    public List<Row> rows() {
        return List.copyOf(rows);
    }

    public List<Detail> details() {
        return List.copyOf(details);
    }

    /**
     * Prints the diagnostics as a Markdown list, then the results as a Markdown table with aligned
     * columns (readable in a terminal, pasteable as it is). The table is the last thing printed.
     */
    public void print(PrintStream out) {
        if (!details.isEmpty()) {
            out.println("Diagnostics:");
            out.println();
            for (Detail detail : details) {
                out.println("- " + escape(detail.scenario()) + ", "
                        + escape(detail.figure().strip()) + ": " + escape(detail.value()));
            }
            out.println();
        }
        int[] width = new int[HEADER.size()];
        for (int i = 0; i < width.length; i++) {
            width[i] = HEADER.get(i).length();
        }
        List<String[]> lines = new ArrayList<>();
        for (Row row : rows) {
            String[] cells = {
                row.scenario(), row.figure(), row.value(), row.reference(), row.ratio(), row.target(), row.verdict()
            };
            for (int i = 0; i < cells.length; i++) {
                cells[i] = escape(cells[i]);
                width[i] = Math.max(width[i], cells[i].length());
            }
            lines.add(cells);
        }
        out.println(line(HEADER.toArray(String[]::new), width));
        StringBuilder rule = new StringBuilder("|");
        for (int w : width) {
            rule.append("-".repeat(w + 2)).append('|');
        }
        out.println(rule);
        for (String[] cells : lines) {
            out.println(line(cells, width));
        }
    }

    /** A cell's text that cannot break the table: pipes escaped, line breaks as spaces. */
    static String escape(String text) {
        return text.replace("|", "\\|").replaceAll("\\R", " ");
    }

    private static String line(String[] cells, int[] width) {
        StringBuilder line = new StringBuilder("|");
        for (int i = 0; i < cells.length; i++) {
            line.append(' ')
                    .append(String.format(Locale.ROOT, "%-" + width[i] + "s", cells[i]))
                    .append(" |");
        }
        return line.toString();
    }
}
