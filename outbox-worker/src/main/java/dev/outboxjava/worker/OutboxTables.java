package dev.outboxjava.worker;

import dev.outboxjava.core.InvalidConfigurationException;
import dev.outboxjava.postgres.PostgresOutboxCatalog;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The outboxes a {@link MultiOutboxWorker} relays in one database: a list of tables, or a discovery rule
 * read again while the worker runs.
 *
 * <ul>
 *   <li>{@link #listed(PostgresOutboxConfig...)}: each table with its own configuration (layout,
 *       ordering, completion mode, wake-up mode); {@link #weighted(PostgresOutboxConfig, int)} adds one
 *       with a weight;</li>
 *   <li>{@link #discovered(Pattern, PostgresOutboxConfig)}: every schema whose whole name matches the
 *       pattern and that holds a table named as the template's; each takes the template's settings.</li>
 * </ul>
 */
public final class OutboxTables {

    private static final Logger log = LoggerFactory.getLogger(OutboxTables.class);

    /**
     * One outbox to relay: its store configuration and its share of the relay threads.
     *
     * @param config the outbox's configuration, its table qualified by its schema
     * @param weight how many batches it gets for one of an outbox of weight 1 while both have work; at least 1
     */
    public record Entry(PostgresOutboxConfig config, int weight) {
        public Entry {
            Objects.requireNonNull(config, "config");
            if (weight < 1) {
                throw new InvalidConfigurationException(
                        "weight", "must be at least 1, was " + weight + " for " + config.tableName());
            }
        }

        /** The schema of the table, {@code public} when unqualified. */
        public String schema() {
            return config.schemaName().orElse("public");
        }

        /** The table's name without its schema. */
        public String table() {
            String name = config.tableName();
            return name.substring(name.indexOf('.') + 1);
        }
    }

    private final List<Entry> listed;
    private final Pattern schemaPattern;
    private final PostgresOutboxConfig template;

    private OutboxTables(List<Entry> listed, Pattern schemaPattern, PostgresOutboxConfig template) {
        this.listed = List.copyOf(listed);
        this.schemaPattern = schemaPattern;
        this.template = template;
    }

    /** These tables, each with its own configuration, weight 1. */
    public static OutboxTables listed(PostgresOutboxConfig... configs) {
        List<Entry> entries = new ArrayList<>();
        for (PostgresOutboxConfig config : configs) {
            entries.add(new Entry(config, 1));
        }
        return listed(entries);
    }

    /**
     * These tables, with their weights.
     *
     * @throws InvalidConfigurationException when two entries name the same table
     */
    public static OutboxTables listed(List<Entry> entries) {
        Map<String, Entry> byTable = new LinkedHashMap<>();
        for (Entry entry : entries) {
            String key = entry.schema() + "." + entry.table();
            if (byTable.put(key, entry) != null) {
                throw new InvalidConfigurationException("tableName", "the table " + key + " is listed twice");
            }
        }
        return new OutboxTables(List.copyOf(byTable.values()), null, null);
    }

    /** These tables and one more, of the given weight. */
    public OutboxTables weighted(PostgresOutboxConfig config, int weight) {
        if (schemaPattern != null) {
            throw new InvalidConfigurationException(
                    "weight", "a discovery rule gives every outbox weight 1; list the tables to weigh them");
        }
        List<Entry> entries = new ArrayList<>(listed);
        entries.add(new Entry(config, weight));
        return listed(entries);
    }

    /**
     * Every schema whose whole name matches {@code schemaPattern} and that holds a table named as
     * {@code template}'s table (which must be unqualified), each relayed with the template's other
     * settings; read at start and again every {@link MultiOutboxConfig#discoveryInterval()}.
     *
     * @throws InvalidConfigurationException when the template's table is qualified by a schema
     */
    public static OutboxTables discovered(Pattern schemaPattern, PostgresOutboxConfig template) {
        Objects.requireNonNull(schemaPattern, "schemaPattern");
        Objects.requireNonNull(template, "template");
        if (template.schemaName().isPresent()) {
            throw new InvalidConfigurationException(
                    "tableName",
                    "'" + template.tableName() + "' is qualified; a discovery rule's template names the table"
                            + " alone (e.g. outbox_events) and the schemas come from the pattern");
        }
        return new OutboxTables(List.of(), schemaPattern, template);
    }

    /** Whether the set is read again while the worker runs (a discovery rule). */
    public boolean isDiscovered() {
        return schemaPattern != null;
    }

    /** Whether any of these outboxes is woken by a LISTEN (its wake-up mode listens). */
    boolean listens() {
        return schemaPattern != null
                ? template.wakeUpMode().listens()
                : listed.stream().anyMatch(entry -> entry.config().wakeUpMode().listens());
    }

    /**
     * The outboxes now: the list, or what the rule finds in the database. The worker asks again every
     * discovery interval; an operator's command (the standalone {@code status}, {@code dead-letters --table})
     * asks once, so that it sees the same outboxes the worker relays.
     *
     * @throws dev.outboxjava.core.OutboxStoreException when the database cannot be asked (discovery only)
     */
    public List<Entry> resolve(DataSource dataSource) {
        if (schemaPattern == null) {
            return listed;
        }
        String table = template.tableName();
        List<Entry> found = new ArrayList<>();
        for (String schema : PostgresOutboxCatalog.schemasHolding(dataSource, table)) {
            if (!schemaPattern.matcher(schema).matches()) {
                continue;
            }
            try {
                found.add(new Entry(
                        template.toBuilder()
                                .tableName(schema + "." + table)
                                .notifyChannel(defaultChannel(schema, table))
                                .build(),
                        1));
            } catch (InvalidConfigurationException e) {
                log.warn("schema {} matches the discovery pattern but cannot be relayed: {}", schema, e.getMessage());
            }
        }
        return found;
    }

    /** The channel a table's producers notify by default (PostgresOutboxConfig derives it the same way). */
    private static String defaultChannel(String schema, String table) {
        String qualified = schema + "_" + table;
        return qualified.length() <= 63 ? qualified : table;
    }

    @Override
    public String toString() {
        return schemaPattern != null
                ? "every schema matching " + schemaPattern.pattern() + " that holds " + template.tableName()
                : listed.stream()
                        .map(entry -> entry.config().tableName())
                        .toList()
                        .toString();
    }
}
