package dev.outboxjava.console.internal;

import dev.outboxjava.console.ConsoleOutbox;
import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.OutboxException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The first page of a console of many outboxes: each outbox with what an operator looks for first
 * (pending, in flight, dead letters, retrying) and the way into its pages. An outbox whose counts cannot
 * be read (its table was just dropped) says so in its row: the others are still listed.
 */
final class OutboxesView {

    private static final Logger log = LoggerFactory.getLogger(OutboxesView.class);

    private OutboxesView() {}

    /**
     * @param baseOf where an outbox's pages are
     */
    static String render(List<ConsoleOutbox> outboxes, Function<ConsoleOutbox, String> baseOf, Instant now) {
        StringBuilder html = new StringBuilder("<p id=\"outbox-count\">")
                .append(outboxes.size())
                .append(" outbox(es)</p><table id=\"outboxes\"><tr><th>outbox</th><th>pending</th><th>in flight</th>"
                        + "<th>dead letters</th><th>retrying</th></tr>");
        for (ConsoleOutbox outbox : outboxes) {
            String base = baseOf.apply(outbox);
            html.append("<tr class=\"outbox\" data-outbox=\"")
                    .append(Html.text(outbox.label()))
                    .append("\"><td><a class=\"outbox-link\" href=\"")
                    .append(base)
                    .append("\">")
                    .append(Html.text(outbox.label()))
                    .append("</a></td>");
            try {
                Map<EventStatus, Long> counts = outbox.store().countByStatus();
                long retrying = outbox.store().backlog(now).retrying();
                cell(html, "pending", counts.getOrDefault(EventStatus.PENDING, 0L), null);
                cell(html, "in-flight", counts.getOrDefault(EventStatus.IN_FLIGHT, 0L), null);
                cell(html, "dead-letters", counts.getOrDefault(EventStatus.FAILED, 0L), base + "/dead-letters");
                cell(html, "retrying", retrying, base + "/retrying");
            } catch (OutboxException e) {
                log.warn("console: the counts of outbox {} cannot be read: {}", outbox.label(), e.getMessage());
                html.append("<td colspan=\"4\" class=\"bad\">not available: ")
                        .append(Html.text(e.getMessage()))
                        .append("</td>");
            }
            html.append("</tr>");
        }
        if (outboxes.isEmpty()) {
            html.append("<tr><td colspan=\"5\">no outbox is served yet (the worker lists its outboxes once it has "
                    + "read them from the database)</td></tr>");
        }
        return html.append("</table>").toString();
    }

    private static void cell(StringBuilder html, String kind, long count, String link) {
        html.append("<td class=\"num ").append(kind).append("\">");
        if (link == null) {
            html.append(count);
        } else {
            html.append("<a href=\"").append(link).append("\">").append(count).append("</a>");
        }
        html.append("</td>");
    }
}
