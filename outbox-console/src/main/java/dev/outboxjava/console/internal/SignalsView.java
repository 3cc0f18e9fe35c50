package dev.outboxjava.console.internal;

import dev.outboxjava.console.HealthSignal;
import java.util.List;
import java.util.Map;

/** The health signals and the facts of the serving process, as the overview and the list of outboxes show them. */
final class SignalsView {

    private SignalsView() {}

    /** The table of health signals under {@code title}; nothing when there are none. */
    static String health(String title, List<HealthSignal> signals) {
        if (signals.isEmpty()) {
            return "";
        }
        StringBuilder html = new StringBuilder("<h2>")
                .append(Html.text(title))
                .append("</h2><table id=\"health\"><tr><th>signal</th><th>value</th><th>threshold</th><th></th></tr>");
        for (HealthSignal signal : signals) {
            html.append("<tr><td>")
                    .append(Html.text(signal.name()))
                    .append("</td><td>")
                    .append(Html.text(signal.value()))
                    .append("</td><td>")
                    .append(Html.text(signal.threshold()))
                    .append("</td><td class=\"")
                    .append(signal.ok() ? "good\">ok" : "bad\">over")
                    .append("</td></tr>");
        }
        return html.append("</table>").toString();
    }

    /** The facts of the process serving the console; nothing when there are none. */
    static String process(Map<String, String> facts) {
        if (facts.isEmpty()) {
            return "";
        }
        StringBuilder html = new StringBuilder("<h2>This worker</h2><table id=\"process\">");
        facts.forEach((name, value) -> html.append("<tr><th>")
                .append(Html.text(name))
                .append("</th><td>")
                .append(Html.text(value))
                .append("</td></tr>"));
        return html.append("</table>").toString();
    }
}
