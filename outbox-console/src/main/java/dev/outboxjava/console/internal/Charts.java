package dev.outboxjava.console.internal;

import java.util.List;
import java.util.Locale;

/** Line charts as inline SVG, drawn on the server (no script on the page). */
public final class Charts {

    private static final int WIDTH = 480;
    private static final int HEIGHT = 120;

    private Charts() {}

    /** A chart of {@code values} (oldest first) with its title and the largest value as the scale. */
    public static String line(String id, String title, List<Double> values) {
        double max = values.stream().mapToDouble(Double::doubleValue).max().orElse(0);
        double top = max <= 0 ? 1 : max;
        StringBuilder points = new StringBuilder();
        int n = values.size();
        for (int i = 0; i < n; i++) {
            double x = n == 1 ? WIDTH : (double) i * WIDTH / (n - 1);
            double y = HEIGHT - values.get(i) / top * (HEIGHT - 4) - 2;
            points.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
        }
        String last =
                n == 0 ? "no samples yet" : String.format(Locale.ROOT, "now %.1f, max %.1f", values.get(n - 1), max);
        return "<figure class=\"chart\" id=\"" + id + "\"><figcaption>" + Html.text(title) + " <span class=\"hint\">("
                + Html.text(last) + ")</span></figcaption><svg viewBox=\"0 0 " + WIDTH + " " + HEIGHT
                + "\" width=\"" + WIDTH + "\" height=\"" + HEIGHT + "\" role=\"img\" aria-label=\"" + Html.text(title)
                + "\"><rect x=\"0\" y=\"0\" width=\"" + WIDTH + "\" height=\"" + HEIGHT + "\" class=\"plot\"/>"
                + (n > 0
                        ? "<polyline fill=\"none\" stroke-width=\"2\" class=\"series\" points=\""
                                + points.toString().trim() + "\"/>"
                        : "")
                + "</svg></figure>";
    }
}
