package dev.outboxjava.console.internal;

import dev.outboxjava.core.port.DeadLetterFilter;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;

/**
 * The dead-letter filter as the list page's form sends it ({@code destination}, {@code type},
 * {@code key}, {@code error}, {@code from}, {@code to} as UTC date-times, {@code after} the position),
 * with the problems of what could not be read. A filter with problems is never used to act.
 */
public final class FilterForm {

    /** Longest text accepted in one filter field. */
    public static final int MAX_FIELD = 1024;

    private final String destination;
    private final String type;
    private final String key;
    private final String error;
    private final String from;
    private final String to;
    private final DeadLetterFilter filter;
    private final OptionalLong after;
    private final List<String> problems;

    private FilterForm(Function<String, String> param) {
        java.util.ArrayList<String> found = new java.util.ArrayList<>();
        this.destination = field(param, "destination", found);
        this.type = field(param, "type", found);
        this.key = field(param, "key", found);
        this.error = field(param, "error", found);
        this.from = field(param, "from", found);
        this.to = field(param, "to", found);
        Optional<Instant> fromAt = instant("from", from, found);
        Optional<Instant> toAt = instant("to", to, found);
        this.filter = DeadLetterFilter.any()
                .withDestination(destination)
                .withType(type)
                .withKey(key)
                .withErrorContaining(error)
                .withCreated(fromAt, toAt);
        String afterText = Optional.ofNullable(param.apply("after")).orElse("").trim();
        OptionalLong position = OptionalLong.empty();
        if (!afterText.isEmpty()) {
            try {
                position = OptionalLong.of(Long.parseLong(afterText));
            } catch (NumberFormatException e) {
                found.add("page position '" + afterText + "' is not a number");
            }
        }
        this.after = position;
        this.problems = List.copyOf(found);
    }

    /** Reads the form from request parameters. */
    public static FilterForm read(Function<String, String> param) {
        return new FilterForm(param);
    }

    private static String field(Function<String, String> param, String name, List<String> problems) {
        String value = Optional.ofNullable(param.apply(name)).orElse("").trim();
        if (value.length() > MAX_FIELD) {
            problems.add(name + " is longer than " + MAX_FIELD + " characters");
            return "";
        }
        return value;
    }

    private static Optional<Instant> instant(String name, String value, List<String> problems) {
        if (value.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(Instant.parse(value));
        } catch (DateTimeParseException e) {
            try {
                return Optional.of(LocalDateTime.parse(value).toInstant(ZoneOffset.UTC));
            } catch (DateTimeParseException again) {
                problems.add(name + " '" + value + "' is not a date-time such as 2024-03-01T10:00 (UTC)");
                return Optional.empty();
            }
        }
    }

    /** Reads event ids (the selected rows); an unreadable one is a problem. */
    public static Set<UUID> ids(List<String> values, List<String> problems) {
        Set<UUID> ids = new LinkedHashSet<>();
        for (String value : values) {
            try {
                ids.add(UUID.fromString(value.trim()));
            } catch (IllegalArgumentException e) {
                problems.add("'" + value + "' is not an event id");
            }
        }
        return ids;
    }

    public DeadLetterFilter filter() {
        return filter;
    }

    public OptionalLong after() {
        return after;
    }

    public List<String> problems() {
        return problems;
    }

    /** The filter as query parameters (without the position), for links. */
    public String query() {
        StringBuilder query = new StringBuilder();
        append(query, "destination", destination);
        append(query, "type", type);
        append(query, "key", key);
        append(query, "error", error);
        append(query, "from", from);
        append(query, "to", to);
        return query.toString();
    }

    private static void append(StringBuilder query, String name, String value) {
        if (!value.isEmpty()) {
            query.append(query.length() == 0 ? "" : "&")
                    .append(name)
                    .append('=')
                    .append(Html.url(value));
        }
    }

    /** The filter fields as inputs: visible for the filter form, hidden for an action form. */
    public String inputs(boolean hidden) {
        StringBuilder html = new StringBuilder();
        String[][] fields = {
            {"destination", destination, "Destination"},
            {"type", type, "Type"},
            {"key", key, "Key"},
            {"error", error, "Error contains"},
            {"from", from, "Created from (UTC)"},
            {"to", to, "Created before (UTC)"}
        };
        for (String[] f : fields) {
            if (hidden) {
                html.append("<input type=\"hidden\" name=\"")
                        .append(f[0])
                        .append("\" value=\"")
                        .append(Html.text(f[1]))
                        .append("\">");
            } else {
                html.append("<label>")
                        .append(f[2])
                        .append(" <input name=\"")
                        .append(f[0])
                        .append("\" id=\"filter-")
                        .append(f[0])
                        .append("\" value=\"")
                        .append(Html.text(f[1]))
                        .append("\"")
                        .append(f[0].equals("from") || f[0].equals("to") ? " placeholder=\"2024-03-01T10:00\"" : "")
                        .append("></label> ");
            }
        }
        return html.toString();
    }
}
