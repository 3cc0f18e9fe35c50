package dev.outboxjava.spring.boot;

import java.util.HashSet;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.springframework.validation.Errors;

/**
 * Checks the properties of a worker of many outboxes ({@code outbox.tables}, {@code outbox.discovery.*},
 * {@code outbox.relay.max-idle-poll-interval}), each error naming the property as it is typed.
 */
final class OutboxesValidation {

    private OutboxesValidation() {}

    static void validate(OutboxProperties p, Errors errors) {
        OutboxProperties.positive(
                errors, "outbox.discovery.interval", p.getDiscovery().getInterval());
        OutboxProperties.positive(
                errors, "outbox.relay.max-idle-poll-interval", p.getRelay().getMaxIdlePollInterval());
        String pattern = p.getDiscovery().getSchemaPattern();
        boolean discovering = pattern != null && !pattern.isBlank();
        if (discovering && !p.getTables().isEmpty()) {
            OutboxProperties.reject(
                    errors,
                    "outbox.discovery.schema-pattern",
                    "cannot be set together with outbox.tables: list the tables, or let the pattern find them, not both");
            return;
        }
        if (discovering) {
            schemaPattern(p, pattern, errors);
        } else {
            tables(p, errors);
        }
    }

    private static void schemaPattern(OutboxProperties p, String pattern, Errors errors) {
        try {
            Pattern.compile(pattern.strip());
        } catch (PatternSyntaxException e) {
            OutboxProperties.reject(
                    errors,
                    "outbox.discovery.schema-pattern",
                    "must be a Java regular expression (e.g. tenant_.*), was '" + pattern + "': " + e.getDescription());
        }
        if (p.getTable() != null && p.getTable().contains(".")) {
            OutboxProperties.reject(
                    errors,
                    "outbox.table",
                    "must name the table alone (e.g. outbox_events) with outbox.discovery.schema-pattern, was '"
                            + p.getTable() + "': the schemas come from the pattern");
        }
    }

    private static void tables(OutboxProperties p, Errors errors) {
        Set<String> seen = new HashSet<>();
        for (String entry : p.getTables()) {
            String table = entry == null ? "" : entry.strip();
            if (!OutboxProperties.TABLE.matcher(table).matches()) {
                OutboxProperties.reject(
                        errors,
                        "outbox.tables",
                        "must list table or schema.table of lower-case letters, digits and '_', had '" + entry + "'");
            } else if (!seen.add(table.contains(".") ? table : "public." + table)) {
                OutboxProperties.reject(errors, "outbox.tables", "lists the table " + table + " twice");
            }
        }
    }
}
