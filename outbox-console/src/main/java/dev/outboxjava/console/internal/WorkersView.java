package dev.outboxjava.console.internal;

import dev.outboxjava.core.port.WorkerHeartbeat;
import java.time.Instant;
import java.util.List;

/**
 * Every worker of the table, from their heartbeats: who and where it is, how it relays, when it last
 * beat, leased and failed; one that stopped beating is shown as gone.
 */
final class WorkersView {

    private WorkersView() {}

    static String render(List<WorkerHeartbeat> workers, Instant now) {
        StringBuilder html = new StringBuilder(
                "<h2>Workers</h2><table id=\"workers\"><tr><th>state</th><th>process</th><th>host</th><th>version</th>"
                        + "<th>relay threads</th><th>ordering</th><th>layout</th><th>started</th><th>last beat</th>"
                        + "<th>last lease</th><th>last error</th></tr>");
        for (WorkerHeartbeat worker : workers) {
            boolean gone = worker.isGone(now);
            html.append("<tr class=\"worker\" data-worker=\"")
                    .append(worker.workerId())
                    .append("\"><td class=\"")
                    .append(gone ? "gone\">gone" : "good\">running")
                    .append("</td><td>")
                    .append(Html.shown(worker.process()))
                    .append("</td><td>")
                    .append(Html.shown(worker.host()))
                    .append("</td><td>")
                    .append(Html.shown(worker.version()))
                    .append("</td><td class=\"num\">")
                    .append(worker.relayThreads())
                    .append("</td><td>")
                    .append(Html.shown(worker.ordering()))
                    .append("</td><td>")
                    .append(Html.shown(worker.layout()))
                    .append("</td><td>")
                    .append(Html.time(worker.startedAt(), now))
                    .append("</td><td>")
                    .append(Html.time(worker.beatAt(), now));
            if (gone) {
                html.append(" <span class=\"hint\">(beats every ")
                        .append(Html.age(worker.beatInterval()).replace(" ago", ""))
                        .append(")</span>");
            }
            html.append("</td><td>")
                    .append(worker.lastLeaseAt().map(at -> Html.time(at, now)).orElse("never"))
                    .append("</td><td>")
                    .append(worker.lastError()
                            .map(error ->
                                    Html.time(error.at(), now) + "<br>" + Html.shown(Html.shorten(error.detail(), 160)))
                            .orElse("none"))
                    .append("</td></tr>");
        }
        if (workers.isEmpty()) {
            html.append("<tr><td colspan=\"11\">no worker beats: none is running, or the table ")
                    .append("of heartbeats does not exist yet</td></tr>");
        }
        return html.append("</table>").toString();
    }
}
