package dev.outboxjava.console.internal;

import dev.outboxjava.core.port.AuditEntry;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The audit trail as a table: when, who, what, which events and how many, their ids, and an edit's payload
 * and headers before and after.
 */
final class AuditView {

    private AuditView() {}

    /** The entries, newest first as given. */
    static String render(List<AuditEntry> entries, String base, Instant now) {
        StringBuilder html =
                new StringBuilder("<table id=\"audit\"><tr><th>when</th><th>who</th><th>what</th><th>which</th>"
                        + "<th>how many</th><th>events</th><th>original (edits)</th><th>new (edits)</th></tr>");
        for (AuditEntry entry : entries) {
            html.append("<tr><td>")
                    .append(Html.time(entry.at(), now))
                    .append("</td><td>")
                    .append(Html.text(entry.actor()))
                    .append("</td><td>")
                    .append(Html.text(entry.action()))
                    .append("</td><td>")
                    .append(Html.text(entry.selection()))
                    .append("</td><td class=\"num\">")
                    .append(entry.affected())
                    .append("</td><td>")
                    .append(eventIds(entry, base))
                    .append("</td><td>")
                    .append(content(entry.originalPayload(), entry.originalHeaders(), "audit-original"))
                    .append("</td><td>")
                    .append(content(entry.newPayload(), entry.newHeaders(), "audit-new"))
                    .append("</td></tr>");
        }
        if (entries.isEmpty()) {
            html.append("<tr><td colspan=\"8\">no operator action recorded yet</td></tr>");
        }
        return html.append("</table>").toString();
    }

    /** The ids of the events the repair changed or removed, folded; a dash when none were recorded. */
    private static String eventIds(AuditEntry entry, String base) {
        if (entry.eventIds().isEmpty()) {
            return "–";
        }
        StringBuilder html = new StringBuilder("<details class=\"audit-ids\"><summary>")
                .append(entry.eventIds().size())
                .append(" id(s)");
        if (entry.affected() > entry.eventIds().size()) {
            html.append(", the first of ").append(entry.affected());
        }
        html.append("</summary>");
        for (UUID id : entry.eventIds()) {
            html.append("<a href=\"")
                    .append(base)
                    .append("/dead-letters/")
                    .append(id)
                    .append("\"><code>")
                    .append(id)
                    .append("</code></a><br>");
        }
        return html.append("</details>").toString();
    }

    /** An edit's payload and headers, folded; empty when the entry is not an edit. */
    private static String content(Optional<byte[]> payload, Map<String, String> headers, String cssClass) {
        if (payload.isEmpty()) {
            return "";
        }
        StringBuilder html = new StringBuilder("<details class=\"")
                .append(cssClass)
                .append("\"><summary>payload, ")
                .append(payload.get().length)
                .append(" bytes; ")
                .append(headers.size())
                .append(" header(s)</summary>")
                .append(PayloadView.render(payload.get()).replace("id=\"payload\"", ""))
                .append("<pre>");
        headers.entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .forEach(header -> html.append(Html.shown(header.getKey()))
                        .append(": ")
                        .append(Html.shown(header.getValue()))
                        .append('\n'));
        return html.append("</pre></details>").toString();
    }
}
