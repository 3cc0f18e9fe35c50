package dev.outboxjava.console.internal;

import dev.outboxjava.core.port.AuditEntry;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/** The audit page's cells that show what a repair touched: the events' ids, an edit's payload and headers. */
final class AuditCells {

    private AuditCells() {}

    /** The ids of the events the repair changed or removed, folded; a dash when none were recorded. */
    static String eventIds(AuditEntry entry, String base) {
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
    static String content(Optional<byte[]> payload, Map<String, String> headers, String cssClass) {
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
