package dev.outboxjava.relayapp;

import dev.outboxjava.worker.MultiOutboxConfig;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The outboxes of a worker that relays several tables ({@code outbox.tables}) or every schema matching a
 * pattern ({@code outbox.discovery.schema.pattern}); present in {@link RelayAppConfig#outboxes()} only when one of
 * the two is set, and then {@code run} starts a {@link dev.outboxjava.worker.MultiOutboxWorker}.
 *
 * @param tables        the listed tables, {@code table} or {@code schema.table}; empty with a pattern
 * @param schemaPattern the discovery rule's pattern, matched against whole schema names; empty with a list
 * @param table         the table every matching schema must hold (with a pattern), unqualified
 * @param multi         the discovery interval ({@code outbox.discovery.interval}) and the idle polling bound
 *                      ({@code outbox.relay.max.idle.poll.interval})
 */
public record OutboxesConfig(
        List<String> tables, Optional<Pattern> schemaPattern, String table, MultiOutboxConfig multi) {

    public OutboxesConfig {
        tables = List.copyOf(tables);
        Objects.requireNonNull(schemaPattern, "schemaPattern");
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(multi, "multi");
        if (tables.isEmpty() == schemaPattern.isEmpty()) {
            throw new IllegalArgumentException("either tables or a schema pattern, not both, not neither");
        }
    }

    /** Whether the set is a discovery rule, looked up again while the worker runs. */
    public boolean isDiscovered() {
        return schemaPattern.isPresent();
    }

    /** The listed tables, or the rule, as the start-up log names them. */
    public String describe() {
        return schemaPattern
                .map(pattern -> "every schema matching " + pattern.pattern() + " that holds " + table)
                .orElseGet(() -> String.join(", ", tables));
    }
}
