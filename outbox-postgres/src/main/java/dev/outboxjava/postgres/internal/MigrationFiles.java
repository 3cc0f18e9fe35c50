package dev.outboxjava.postgres.internal;

import java.util.List;

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
    /** The per-key ordering indexes, applied after every file of {@link #OUTBOX}. */
    public static final List<String> OUTBOX_PER_KEY =
            List.of(OUTBOX_PER_KEY_LOCATION + "/R__outbox_per_key_indexes.sql");
    /** The operator API's versioned migrations, in version order. */
    public static final List<String> OUTBOX_OPERATOR = List.of(
            OUTBOX_OPERATOR_LOCATION + "/V1__create_operator_audit_table.sql",
            OUTBOX_OPERATOR_LOCATION + "/V2__dead_letter_filter_indexes.sql",
            OUTBOX_OPERATOR_LOCATION + "/V3__create_attempts_table.sql");
    /** The inbox table's versioned migrations, in version order. */
    public static final List<String> INBOX = List.of(INBOX_LOCATION + "/V1__create_inbox_table.sql");

    /** What the audit table's name adds to the outbox table's. */
    public static final String AUDIT_SUFFIX = "_audit";
    /** What the attempts table's name adds to the outbox table's. */
    public static final String ATTEMPTS_SUFFIX = "_attempts";

    private MigrationFiles() {}

    /**
     * The files' text for one table, concatenated: {@code "${placeholder}"} (a reference to the table)
     * becomes the quoted, possibly schema-qualified name; {@code ${placeholder}} inside another quoted
     * identifier (an index or constraint name, which PostgreSQL places in the table's schema) becomes
     * the bare table name; {@code "${placeholder}_audit"} and {@code "${placeholder}_attempts"} (the audit
     * and attempts tables) become the quoted table in the outbox table's schema.
     */
    public static String render(List<String> resources, String placeholder, Identifiers.TableName table) {
        String token = "${" + placeholder + "}";
        StringBuilder sql = new StringBuilder();
        for (String resource : resources) {
            if (sql.length() > 0) {
                sql.append('\n');
            }
            sql.append(DdlScripts.resource(resource)
                    .replace('"' + token + AUDIT_SUFFIX + '"', table.quotedSibling(AUDIT_SUFFIX))
                    .replace('"' + token + ATTEMPTS_SUFFIX + '"', table.quotedSibling(ATTEMPTS_SUFFIX))
                    .replace('"' + token + '"', table.quoted())
                    .replace(token, table.table()));
        }
        return sql.toString();
    }
}
