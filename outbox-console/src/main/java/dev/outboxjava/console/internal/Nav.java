package dev.outboxjava.console.internal;

import java.util.Optional;

/**
 * The links in a page's header. A console of one outbox links that outbox's pages, as it always did; a
 * console of many links the list of outboxes and, on the pages of one, that outbox's pages under its label.
 *
 * @param outboxBase where the pages of the outbox the page belongs to are; empty on the list of many
 * @param label      that outbox's label, shown in a console of many; empty in a console of one
 * @param many       whether the console serves many outboxes (and so links their list)
 */
record Nav(Optional<String> outboxBase, Optional<String> label, boolean many) {

    private static final String[][] OUTBOX_PAGES = {
        {"overview", "", "Overview"},
        {"dead-letters", "/dead-letters", "Dead letters"},
        {"retrying", "/retrying", "Retrying"},
        {"audit", "/audit", "Audit"}
    };

    /** The header of a console of one outbox, whose pages are under {@code base}. */
    static Nav oneOutbox(String base) {
        return new Nav(Optional.of(base), Optional.empty(), false);
    }

    /** The header of a console of many outboxes on a page of none of them (the list, the sign-in). */
    static Nav outboxList() {
        return new Nav(Optional.empty(), Optional.empty(), true);
    }

    /** The header of a console of many outboxes on a page of the outbox {@code label}, under {@code base}. */
    static Nav outboxOf(String base, String label) {
        return new Nav(Optional.of(base), Optional.of(label), true);
    }

    /** The links as HTML, the one of {@code current} marked; the label escaped (it comes from a schema name). */
    String render(String root, String current) {
        StringBuilder html = new StringBuilder();
        if (many) {
            link(html, root, "outboxes", "Outboxes", outboxBase.isEmpty() && "overview".equals(current));
        }
        label.ifPresent(text -> html.append("<span class=\"outbox\" id=\"nav-outbox\">")
                .append(Html.text(text))
                .append("</span>"));
        outboxBase.ifPresent(base -> {
            for (String[] item : OUTBOX_PAGES) {
                link(html, base + item[1], item[0], item[2], item[0].equals(current));
            }
        });
        return html.toString();
    }

    private static void link(StringBuilder html, String href, String id, String text, boolean current) {
        html.append("<a href=\"")
                .append(href)
                .append("\" id=\"nav-")
                .append(id)
                .append("\"")
                .append(current ? " class=\"current\"" : "")
                .append(">")
                .append(text)
                .append("</a>");
    }
}
