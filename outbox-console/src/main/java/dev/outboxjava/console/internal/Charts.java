package dev.outboxjava.console.internal;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;

/**
 * Line charts as inline SVG, drawn on the server (no script on the page), with a time axis (UTC, the
 * first and last sample and the ticks between) and a value axis (0 and the largest value).
 */
public final class Charts {

    /** One value at one time. */
    public record Point(Instant at, double value) {}

    private static final int WIDTH = 480;
    private static final int HEIGHT = 120;
    /** Room left of the plot for the value labels and below it for the time labels. */
    private static final int LEFT = 44;

    private static final int BOTTOM = 18;
    private static final int TICKS = 4;
    private static final DateTimeFormatter CLOCK =
            DateTimeFormatter.ofPattern("HH:mm:ss", Locale.ROOT).withZone(ZoneOffset.UTC);

    private Charts() {}

    /** A chart of {@code points} (oldest first) with its title. */
    public static String line(String id, String title, List<Point> points) {
        double max = points.stream().mapToDouble(Point::value).max().orElse(0);
        double top = max <= 0 ? 1 : max;
        int n = points.size();
        int plotWidth = WIDTH - LEFT;
        int plotHeight = HEIGHT - BOTTOM;
        StringBuilder svg = new StringBuilder();
        svg.append("<rect x=\"")
                .append(LEFT)
                .append("\" y=\"0\" width=\"")
                .append(plotWidth)
                .append("\" height=\"")
                .append(plotHeight)
                .append("\" class=\"plot\"/>");
        label(svg, LEFT - 4, 10, "end", number(max), "axis-max");
        label(svg, LEFT - 4, plotHeight, "end", "0", "axis-zero");
        if (n > 0) {
            long first = points.get(0).at().toEpochMilli();
            long span = Math.max(1, points.get(n - 1).at().toEpochMilli() - first);
            StringBuilder line = new StringBuilder();
            for (Point point : points) {
                double x =
                        LEFT + (n == 1 ? plotWidth : (double) (point.at().toEpochMilli() - first) * plotWidth / span);
                double y = plotHeight - point.value() / top * (plotHeight - 4) - 2;
                line.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
            }
            svg.append("<polyline fill=\"none\" stroke-width=\"2\" class=\"series\" points=\"")
                    .append(line.toString().trim())
                    .append("\"/>");
            int ticks = n == 1 ? 0 : TICKS;
            for (int i = 0; i <= ticks; i++) {
                Instant at = Instant.ofEpochMilli(first + span * i / Math.max(1, ticks));
                int x = LEFT + (ticks == 0 ? plotWidth : plotWidth * i / ticks);
                String anchor = i == 0 && ticks > 0 ? "start" : i == ticks ? "end" : "middle";
                label(svg, x, HEIGHT - 4, anchor, CLOCK.format(at), "axis-time");
            }
        }
        String last = n == 0
                ? "no samples yet"
                : String.format(
                        Locale.ROOT,
                        "now %.1f, max %.1f, times UTC",
                        points.get(n - 1).value(),
                        max);
        return "<figure class=\"chart\" id=\"" + id + "\"><figcaption>" + Html.text(title) + " <span class=\"hint\">("
                + Html.text(last) + ")</span></figcaption><svg viewBox=\"0 0 " + WIDTH + " " + HEIGHT
                + "\" width=\"" + WIDTH + "\" height=\"" + HEIGHT + "\" role=\"img\" aria-label=\"" + Html.text(title)
                + "\">" + svg + "</svg></figure>";
    }

    private static void label(StringBuilder svg, int x, int y, String anchor, String text, String cssClass) {
        svg.append("<text x=\"")
                .append(x)
                .append("\" y=\"")
                .append(y)
                .append("\" text-anchor=\"")
                .append(anchor)
                .append("\" class=\"axis ")
                .append(cssClass)
                .append("\">")
                .append(Html.text(text))
                .append("</text>");
    }

    private static String number(double value) {
        return value == Math.rint(value) && Math.abs(value) < 1e15
                ? String.format(Locale.ROOT, "%,d", (long) value)
                : String.format(Locale.ROOT, "%.1f", value);
    }
}
