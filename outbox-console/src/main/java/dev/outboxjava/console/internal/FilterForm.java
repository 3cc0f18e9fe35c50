package dev.outboxjava.console.internal;

import dev.outboxjava.core.port.DeadLetterFilter;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;

/**
 * The dead-letter filter as the list page's form sends it ({@code destination}, {@code type},
 * {@code key}, {@code error}, {@code cause64} (a failure group's cause, UTF-8 in unpadded base64url, so
 * that every character of it survives a form), {@code from}, {@code to} as UTC date-times, {@code after} the
 * position), with the problems of what could not be read. A filter with problems is never used to act.
 *
 * <p>Destination, type and key match as contained text (so a prefix such as {@code order.} finds every
 * order event) unless {@code match=exact}: the links of the overview, which name one destination or one
 * failure group, ask for exact matches.
 */
public final class FilterForm {

    /** Longest text accepted in one filter field. */
    public static final int MAX_FIELD = 1024;

    private final String destination;
    private final String type;
    private final String key;
    private final String error;
    private final String cause;
    private final boolean exact;
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
        this.cause = cause(Optional.ofNullable(param.apply("cause64")).orElse(""), found);
        this.exact = "exact".equals(param.apply("match"));
        this.from = field(param, "from", found);
        this.to = field(param, "to", found);
        Optional<Instant> fromAt = instant("from", from, found);
        Optional<Instant> toAt = instant("to", to, found);
        this.filter = DeadLetterFilter.any()
                .withDestination(destination)
                .withType(type)
                .withKey(key)
                .withErrorContaining(error)
                .withCause(cause)
                .withMatch(exact ? DeadLetterFilter.TextMatch.EXACT : DeadLetterFilter.TextMatch.CONTAINS)
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

    private static String cause(String encoded, List<String> problems) {
        if (encoded.length() > 4 * MAX_FIELD) {
            problems.add("the cause is longer than " + MAX_FIELD + " characters");
            return "";
        }
        try {
            return new String(Base64.getUrlDecoder().decode(encoded.trim()), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            problems.add("the cause is not readable (open the group from the overview again)");
            return "";
        }
    }

    /** A cause as the {@code cause64} parameter carries it. */
    public static String encodeCause(String cause) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(cause.getBytes(StandardCharsets.UTF_8));
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
        append(query, "cause64", cause.isEmpty() ? "" : encodeCause(cause));
        append(query, "match", exact ? "exact" : "");
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

    /**
     * The filter fields as inputs: visible for the filter form (destination, type and key offering
     * {@code suggestions}' values), hidden for an action form.
     */
    public String inputs(boolean hidden, Suggestions suggestions) {
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
                hidden(html, f[0], f[1]);
                continue;
            }
            List<String> values = suggestions.values(f[0]);
            html.append("<label>")
                    .append(f[2])
                    .append(" <input name=\"")
                    .append(f[0])
                    .append("\" id=\"filter-")
                    .append(f[0])
                    .append("\" value=\"")
                    .append(Html.text(f[1]))
                    .append("\"")
                    .append(values.isEmpty() ? "" : " list=\"values-" + f[0] + "\"")
                    .append(f[0].equals("from") || f[0].equals("to") ? " placeholder=\"2024-03-01T10:00\"" : "")
                    .append("></label> ");
            if (!values.isEmpty()) {
                html.append("<datalist id=\"values-").append(f[0]).append("\">");
                values.forEach(value ->
                        html.append("<option value=\"").append(Html.text(value)).append("\"></option>"));
                html.append("</datalist>");
            }
        }
        // a cause comes from a group of the overview: shown, kept, never typed
        hidden(html, "cause64", cause.isEmpty() ? "" : encodeCause(cause));
        if (hidden) {
            hidden(html, "match", exact ? "exact" : "");
        } else {
            if (!cause.isEmpty()) {
                html.append("<span id=\"filter-cause\">cause: <code>")
                        .append(Html.shown(cause))
                        .append("</code></span> ");
            }
            html.append("<label><input type=\"checkbox\" name=\"match\" value=\"exact\" id=\"filter-exact\"")
                    .append(exact ? " checked" : "")
                    .append("> exact destination, type and key</label> ");
        }
        return html.toString();
    }

    /** The filter fields as hidden inputs, for an action form. */
    public String hiddenInputs() {
        return inputs(true, Suggestions.NONE);
    }

    private static void hidden(StringBuilder html, String name, String value) {
        if (!value.isEmpty()) {
            html.append("<input type=\"hidden\" name=\"")
                    .append(name)
                    .append("\" value=\"")
                    .append(Html.text(value))
                    .append("\">");
        }
    }

    /** The values a filter field offers, by field name ({@code destination}, {@code type}, {@code key}). */
    @FunctionalInterface
    public interface Suggestions {
        /** No suggestions. */
        Suggestions NONE = field -> List.of();

        List<String> values(String field);
    }
}
