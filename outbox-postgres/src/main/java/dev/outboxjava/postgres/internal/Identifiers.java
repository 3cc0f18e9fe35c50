package dev.outboxjava.postgres.internal;

import dev.outboxjava.core.InvalidConfigurationException;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Validates the names that end up inside SQL text (table, schema, channel). Only lower-case
 * unquoted-style identifiers pass, so the quoted name the library uses is the same name an unquoted
 * reference in the user's own SQL or migrations resolves to — and nothing else can reach the SQL.
 */
public final class Identifiers {

    /** PostgreSQL truncates identifiers longer than NAMEDATALEN - 1 bytes. */
    public static final int MAX_IDENTIFIER_LENGTH = 63;
    /**
     * Longest table name: index, constraint, trigger and function names are derived from it by
     * appending a suffix (the longest is {@code _in_flight_idx}) and must stay within 63 characters.
     */
    public static final int MAX_TABLE_LENGTH = 48;

    private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]*");

    private Identifiers() {}

    /** A validated, possibly schema-qualified table name. */
    public record TableName(Optional<String> schema, String table) {

        /** The qualified name as configured, e.g. {@code billing.outbox_events}. */
        public String display() {
            return schema.map(s -> s + "." + table).orElse(table);
        }

        /** The quoted SQL reference, e.g. {@code "billing"."outbox_events"}. */
        public String quoted() {
            return schema.map(s -> quote(s) + "." + quote(table)).orElse(quote(table));
        }

        /** A name derived from the table, in the table's schema when qualified (for functions). */
        public String quotedSibling(String suffix) {
            return schema.map(s -> quote(s) + "." + quote(table + suffix)).orElse(quote(table + suffix));
        }
    }

    /**
     * Parses {@code table} or {@code schema.table}.
     *
     * @throws InvalidConfigurationException naming {@code setting} when the value is not a plain identifier
     */
    public static TableName tableName(String setting, String value) {
        if (value == null || value.isEmpty()) {
            throw new InvalidConfigurationException(
                    setting, "is required, e.g. outbox_events or myschema.outbox_events");
        }
        String[] parts = value.split("\\.", -1);
        if (parts.length > 2) {
            throw new InvalidConfigurationException(
                    setting, "'" + printable(value) + "' has more than one '.'; use table or schema.table");
        }
        if (parts.length == 2) {
            check(setting, value, parts[0], MAX_IDENTIFIER_LENGTH);
            check(setting, value, parts[1], MAX_TABLE_LENGTH);
            return new TableName(Optional.of(parts[0]), parts[1]);
        }
        check(setting, value, parts[0], MAX_TABLE_LENGTH);
        return new TableName(Optional.empty(), parts[0]);
    }

    /**
     * Validates a LISTEN/NOTIFY channel name.
     *
     * @throws InvalidConfigurationException naming {@code setting} otherwise
     */
    public static String channel(String setting, String value) {
        if (value == null || value.isEmpty()) {
            throw new InvalidConfigurationException(setting, "is required, e.g. outbox_events");
        }
        check(setting, value, value, MAX_IDENTIFIER_LENGTH);
        return value;
    }

    /** Double-quotes an identifier that already passed validation. */
    public static String quote(String identifier) {
        return '"' + identifier + '"';
    }

    private static void check(String setting, String whole, String part, int maxLength) {
        if (!IDENTIFIER.matcher(part).matches()) {
            throw new InvalidConfigurationException(
                    setting,
                    "'" + printable(whole) + "' is not a plain PostgreSQL "
                            + "identifier: use lower-case letters, digits and '_', starting with a letter or '_' "
                            + "(optionally schema.table); nothing else is accepted because the name becomes part of SQL");
        }
        if (part.length() > maxLength) {
            throw new InvalidConfigurationException(
                    setting, "'" + part + "' is " + part.length() + " characters, over the maximum of " + maxLength);
        }
    }

    // Keeps control characters out of log lines while still showing what was rejected.
    private static String printable(String value) {
        String shown = value.length() > 80 ? value.substring(0, 80) + "..." : value;
        return shown.replaceAll("\\p{Cntrl}", "?");
    }
}
