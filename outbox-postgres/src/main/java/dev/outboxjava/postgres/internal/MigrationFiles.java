package dev.outboxjava.postgres.internal;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The shipped migration files and how they are rendered for a configured table.
 *
 * <p>The files are the one source of the schema: {@link SchemaDdl} and the inbox's DDL are these files
 * with the table placeholder replaced, so Flyway or Liquibase users and {@code ensureSchema()} users
 * get the same tables. Each location keeps its own version sequence and needs its own Flyway history
 * table, so none of them can clash with an application's versions or with each other. A change to a
 * table is a new versioned file, appended to its list here, whose statements are idempotent
 * ({@code ADD COLUMN IF NOT EXISTS}, {@code CREATE INDEX IF NOT EXISTS}), because {@code ensureSchema()}
 * runs every file on every start. A test keeps these lists equal to the directories' contents.
 */
public final class MigrationFiles {

    /** Root of every location. */
    public static final String ROOT = "db/outbox/postgresql/";
    /** The outbox table's versioned migrations. */
    public static final String OUTBOX_LOCATION = ROOT + "outbox";
    /** The outbox table's versioned migrations in the append-only layout ({@code StoreLayout.APPEND_LOG}). */
    public static final String OUTBOX_APPEND_LOG_LOCATION = ROOT + "outbox-append-log";
    /** The per-key ordering indexes: one repeatable migration over the outbox table. */
    public static final String OUTBOX_PER_KEY_LOCATION = ROOT + "outbox-per-key";
    /** The inbox table's versioned migrations. */
    public static final String INBOX_LOCATION = ROOT + "inbox";
    /**
     * What the operator API needs, in versioned migrations: the audit table (named after the outbox table,
     * suffix {@code _audit}) and the dead-letter filters' indexes on the outbox table.
     */
    public static final String OUTBOX_OPERATOR_LOCATION = ROOT + "outbox-operator";

    /** Placeholder for the outbox table's name in {@link #OUTBOX_LOCATION} and {@link #OUTBOX_PER_KEY_LOCATION}. */
    public static final String OUTBOX_TABLE_PLACEHOLDER = "outbox_table";
    /** Placeholder for the inbox table's name in {@link #INBOX_LOCATION}. */
    public static final String INBOX_TABLE_PLACEHOLDER = "inbox_table";

    /** The outbox table's versioned migrations, in version order. */
    public static final List<String> OUTBOX = List.of(
            OUTBOX_LOCATION + "/V1__create_outbox_table.sql",
            OUTBOX_LOCATION + "/V2__add_cloudevents_subject_dataschema.sql");
    /** The append-only layout's versioned migrations, in version order. */
    public static final List<String> OUTBOX_APPEND_LOG = List.of(
            OUTBOX_APPEND_LOG_LOCATION + "/V1__create_outbox_append_log.sql",
            OUTBOX_APPEND_LOG_LOCATION + "/V2__key_order_index.sql",
            OUTBOX_APPEND_LOG_LOCATION + "/V3__one_event_per_id.sql",
            OUTBOX_APPEND_LOG_LOCATION + "/V4__drop_state_columns_of_the_log.sql",
            OUTBOX_APPEND_LOG_LOCATION + "/V5__drop_key_order_index.sql");
    /** The per-key ordering indexes, applied after every file of {@link #OUTBOX}. */
    public static final List<String> OUTBOX_PER_KEY =
            List.of(OUTBOX_PER_KEY_LOCATION + "/R__outbox_per_key_indexes.sql");
    /** The operator API's versioned migrations, in version order. */
    public static final List<String> OUTBOX_OPERATOR = List.of(
            OUTBOX_OPERATOR_LOCATION + "/V1__create_operator_audit_table.sql",
            OUTBOX_OPERATOR_LOCATION + "/V2__dead_letter_filter_indexes.sql",
            OUTBOX_OPERATOR_LOCATION + "/V3__create_attempts_table.sql",
            OUTBOX_OPERATOR_LOCATION + "/V4__create_workers_table.sql",
            OUTBOX_OPERATOR_LOCATION + "/V5__audit_new_content_and_ids_attempt_stopped_by.sql");
    /** The inbox table's versioned migrations, in version order. */
    public static final List<String> INBOX = List.of(INBOX_LOCATION + "/V1__create_inbox_table.sql");

    /** What the audit table's name adds to the outbox table's. */
    public static final String AUDIT_SUFFIX = "_audit";
    /** What the attempts table's name adds to the outbox table's. */
    public static final String ATTEMPTS_SUFFIX = "_attempts";
    /** What the workers' heartbeat table's name adds to the outbox table's. */
    public static final String WORKERS_SUFFIX = "_workers";

    private MigrationFiles() {}

    /**
     * The files' text for one table, concatenated. A quoted name made of the placeholder and a suffix,
     * {@code "${placeholder}_state"}, becomes the quoted name in the table's schema, except where
     * PostgreSQL takes a bare name: index, key and check names (suffixes {@code _idx}, {@code _pkey},
     * {@code _check}; PostgreSQL puts them in the table's schema) and the new name after
     * {@code RENAME TO}. {@code "${placeholder}"} alone is the table itself.
     */
    public static String render(List<String> resources, String placeholder, Identifiers.TableName table) {
        Pattern name = Pattern.compile("(RENAME TO )?\"\\$\\{" + Pattern.quote(placeholder) + "\\}([a-z0-9_]*)\"");
        StringBuilder sql = new StringBuilder();
        for (String resource : resources) {
            if (sql.length() > 0) {
                sql.append('\n');
            }
            sql.append(name.matcher(DdlScripts.resource(resource)).replaceAll(match -> {
                String renameTo = match.group(1) == null ? "" : match.group(1);
                String suffix = match.group(2);
                boolean bare =
                        !renameTo.isEmpty() || BARE_SUFFIX.matcher(suffix).find();
                String quoted = bare ? Identifiers.quote(table.table() + suffix) : table.quotedSibling(suffix);
                return Matcher.quoteReplacement(renameTo + quoted);
            }));
        }
        return sql.toString();
    }

    /** Names PostgreSQL takes without a schema. */
    private static final Pattern BARE_SUFFIX = Pattern.compile("_(idx|pkey|check)$");
}
