package dev.outboxjava.console.internal;

import dev.outboxjava.core.port.FailureGroup;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The overview's answer to "why": the failed events grouped by cause, destination and type, each group
 * with its count, when it was first and last seen, and what to do about it — open its dead letters,
 * requeue them all, purge them all (confirmed first) — or, for events still being retried, where they
 * are listed.
 */
final class FailureGroupsView {

    private FailureGroupsView() {}

    /**
     * @param csrfInput the session's CSRF token as a hidden input; empty when no one is signed in (no actions)
     */
    static String render(List<FailureGroup> groups, String base, Optional<String> csrfInput, Instant now) {
        StringBuilder html = new StringBuilder(
                "<h2>Why events fail</h2><table id=\"failure-groups\" class=\"groups\"><tr><th>what</th><th>cause</th>"
                        + "<th>destination</th><th>type</th><th>events</th><th>first seen</th><th>last seen</th>"
                        + "<th></th></tr>");
        int index = 0;
        for (FailureGroup group : groups) {
            boolean dead = group.kind() == FailureGroup.Kind.DEAD_LETTER;
            String list = base + "/dead-letters?" + query(group);
            html.append("<tr class=\"failure-group\" id=\"group-")
                    .append(index)
                    .append("\"><td>")
                    .append(dead ? "dead letters" : "retrying")
                    .append("</td><td class=\"cause\" title=\"")
                    .append(Html.text(group.example()))
                    .append("\">")
                    .append(Html.shown(group.cause()))
                    .append("</td><td>")
                    .append(Html.text(group.destination()))
                    .append("</td><td>")
                    .append(Html.text(group.type()))
                    .append("</td><td class=\"num group-count\">")
                    .append(group.count())
                    .append("</td><td>")
                    .append(Html.time(group.firstSeen(), now))
                    .append("</td><td>")
                    .append(Html.time(group.lastSeen(), now))
                    .append("</td><td>");
            if (dead) {
                html.append("<a href=\"").append(list).append("\" class=\"group-list\">list</a>");
                csrfInput.ifPresent(csrf -> {
                    action(html, base + "/dead-letters/requeue", csrf, group, "Requeue all", "group-requeue", "");
                    action(html, base + "/dead-letters/purge", csrf, group, "Purge all…", "group-purge", "danger");
                });
            } else {
                html.append("<a href=\"").append(base).append("/retrying\" class=\"group-list\">list</a>");
            }
            html.append("</td></tr>");
            index++;
        }
        if (groups.isEmpty()) {
            html.append(
                    "<tr><td colspan=\"8\">no failed event: nothing is dead-lettered or waiting for a retry</td></tr>");
        }
        return html.append("</table>").toString();
    }

    private static String query(FailureGroup group) {
        return "destination=" + Html.url(group.destination()) + "&type=" + Html.url(group.type()) + "&cause64="
                + FilterForm.encodeCause(group.cause()) + "&match=exact";
    }

    private static void action(
            StringBuilder html,
            String path,
            String csrf,
            FailureGroup group,
            String label,
            String cssId,
            String buttonClass) {
        html.append("<form method=\"post\" action=\"")
                .append(path)
                .append("\">")
                .append(csrf)
                .append(hidden("destination", group.destination()))
                .append(hidden("type", group.type()))
                .append(hidden("cause64", FilterForm.encodeCause(group.cause())))
                .append(hidden("match", "exact"))
                .append(hidden("scope", "matching"))
                .append("<button type=\"submit\" class=\"")
                .append(cssId)
                .append(buttonClass.isEmpty() ? "" : " " + buttonClass)
                .append("\">")
                .append(label)
                .append(" (")
                .append(group.count())
                .append(")</button></form>");
    }

    private static String hidden(String name, String value) {
        return "<input type=\"hidden\" name=\"" + name + "\" value=\"" + Html.text(value) + "\">";
    }
}
