package dev.outboxjava.console.internal;

import dev.outboxjava.console.ActivitySampler;
import dev.outboxjava.console.HealthSignal;
import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.port.ActiveLease;
import dev.outboxjava.core.port.Backlog;
import dev.outboxjava.core.port.DestinationCounts;
import dev.outboxjava.core.port.OperatorStore;
import dev.outboxjava.core.port.OutboxStore;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The overview page: events per state, what the pending ones wait for, the last hour, why events fail,
 * per destination, the leases held now, every worker, this process and the database's health.
 */
final class OverviewView {

    /** Failure groups shown. */
    private static final int GROUPS = 30;
    /** Workers shown. */
    private static final int WORKERS = 50;

    private final OutboxStore store;
    private final OperatorStore operator;
    private final String base;
    private final Optional<ActivitySampler> sampler;
    private final Supplier<List<HealthSignal>> healthSignals;
    private final Supplier<Map<String, String>> processFacts;

    OverviewView(
            OutboxStore store,
            OperatorStore operator,
            String base,
            Optional<ActivitySampler> sampler,
            Supplier<List<HealthSignal>> healthSignals,
            Supplier<Map<String, String>> processFacts) {
        this.store = store;
        this.operator = operator;
        this.base = base;
        this.sampler = sampler;
        this.healthSignals = healthSignals;
        this.processFacts = processFacts;
    }

    /**
     * @param csrfInput the session's CSRF token as a hidden input; empty when no one is signed in
     */
    String render(Optional<String> csrfInput, Instant now) {
        Map<EventStatus, Long> counts = store.countByStatus();
        Backlog backlog = store.backlog(now);
        Optional<Instant> oldestPending = store.oldestPendingCreatedAt();
        StringBuilder html = new StringBuilder("<div class=\"cards\" id=\"status-counts\">");
        for (EventStatus status : EventStatus.values()) {
            html.append("<div class=\"card\"><div class=\"label\">")
                    .append(status.databaseValue())
                    .append("</div><div class=\"value\" id=\"count-")
                    .append(status.databaseValue())
                    .append("\">")
                    .append(counts.getOrDefault(status, 0L))
                    .append("</div></div>");
        }
        html.append(
                        "</div><h2>Waiting</h2><table id=\"backlog\"><tr><th>eligible now</th><td class=\"num\" id=\"eligible\">")
                .append(backlog.eligible())
                .append("</td></tr><tr><th>oldest eligible event due since</th><td>")
                .append(Html.time(backlog.oldestEligibleSince(), now))
                .append("</td></tr><tr><th>waiting for a retry</th>")
                .append("<td class=\"num\">")
                .append(backlog.retrying())
                .append("</td></tr><tr><th>scheduled for later</th>")
                .append("<td class=\"num\">")
                .append(backlog.scheduled())
                .append("</td></tr><tr><th>held behind their key</th>")
                .append("<td class=\"num\">")
                .append(backlog.held())
                .append("</td></tr><tr><th>oldest pending event (any)</th><td>")
                .append(Html.time(oldestPending, now))
                .append("</td></tr></table>");
        sampler.ifPresent(s -> {
            List<ActivitySampler.Sample> samples = s.samples();
            html.append("<h2>Last hour</h2><div class=\"charts\">")
                    .append(Charts.line(
                            "chart-published",
                            "published per second",
                            samples.stream()
                                    .map(x -> new Charts.Point(x.at(), x.publishedPerSecond()))
                                    .toList()))
                    .append(Charts.line(
                            "chart-pending",
                            "pending",
                            samples.stream()
                                    .map(x -> new Charts.Point(x.at(), x.pending()))
                                    .toList()))
                    .append("</div>");
        });
        html.append(FailureGroupsView.render(operator.failureGroups(GROUPS), base, csrfInput, now));
        html.append("<h2>Per destination</h2><table id=\"destinations\"><tr><th>destination</th><th>pending</th>"
                + "<th>in flight</th><th>dead letters</th></tr>");
        List<DestinationCounts> destinations = operator.countByDestination(50);
        for (DestinationCounts d : destinations) {
            html.append("<tr><td>")
                    .append(Html.text(d.destination()))
                    .append("</td><td class=\"num\">")
                    .append(d.pending())
                    .append("</td><td class=\"num\">")
                    .append(d.inFlight())
                    .append("</td><td class=\"num\"><a href=\"")
                    .append(base)
                    .append("/dead-letters?match=exact&destination=")
                    .append(Html.url(d.destination()))
                    .append("\">")
                    .append(d.failed())
                    .append("</a></td></tr>");
        }
        if (destinations.isEmpty()) {
            html.append("<tr><td colspan=\"4\">nothing unfinished</td></tr>");
        }
        html.append(
                "</table><h2>Leases held now</h2><table id=\"leases\"><tr><th>lease</th><th>events</th><th>leased at</th></tr>");
        List<ActiveLease> leases = operator.activeLeases(20);
        for (ActiveLease lease : leases) {
            html.append("<tr><td>")
                    .append(lease.leaseId())
                    .append("</td><td class=\"num\">")
                    .append(lease.events())
                    .append("</td><td>")
                    .append(Html.time(lease.leasedAt(), now))
                    .append("</td></tr>");
        }
        if (leases.isEmpty()) {
            html.append("<tr><td colspan=\"3\">none: no relay holds a batch now</td></tr>");
        }
        html.append("</table>");
        html.append(WorkersView.render(operator.workers(WORKERS), now));
        html.append(SignalsView.process(processFacts.get()));
        html.append(SignalsView.health("Database health", healthSignals.get()));
        return html.toString();
    }
}
