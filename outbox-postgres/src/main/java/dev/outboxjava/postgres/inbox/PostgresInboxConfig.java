package dev.outboxjava.postgres.inbox;

import dev.outboxjava.core.InvalidConfigurationException;
import dev.outboxjava.postgres.internal.Identifiers;
import java.util.Objects;
import java.util.Optional;

/**
 * Settings of a PostgreSQL inbox: which table holds the processed message ids. Immutable; build
 * with {@link #builder()} or take {@link #ofDefaults()}.
 *
 * <p>Default table name {@value #DEFAULT_TABLE_NAME}, in the connection's {@code search_path}
 * schema. The name is validated when {@link Builder#build()} runs, before any SQL is built, with
 * the same rule as the outbox table: a lower-case PostgreSQL identifier ({@code [a-z_][a-z0-9_]*},
 * at most 48 characters), optionally qualified by a schema; anything else is refused with an
 * {@link InvalidConfigurationException} naming {@value #TABLE_NAME_SETTING}. The validated name is
 * always double-quoted in SQL.
 */
public final class PostgresInboxConfig {

    /** Default inbox table. */
    public static final String DEFAULT_TABLE_NAME = "outbox_inbox";
    /** The setting named in validation errors. */
    public static final String TABLE_NAME_SETTING = "inbox.tableName";

    private final Identifiers.TableName table;

    private PostgresInboxConfig(Builder builder) {
        this.table = Identifiers.tableName(TABLE_NAME_SETTING, builder.tableName);
    }

    /** The default table, {@value #DEFAULT_TABLE_NAME}. */
    public static PostgresInboxConfig ofDefaults() {
        return builder().build();
    }

    /** A builder starting from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** The table name as configured, e.g. {@code outbox_inbox} or {@code shipping.outbox_inbox}. */
    public String tableName() {
        return table.display();
    }

    /** The schema of a qualified table name. */
    public Optional<String> schemaName() {
        return table.schema();
    }

    Identifiers.TableName table() {
        return table;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof PostgresInboxConfig that && table.equals(that.table);
    }

    @Override
    public int hashCode() {
        return table.hashCode();
    }

    @Override
    public String toString() {
        return "PostgresInboxConfig[tableName=" + tableName() + "]";
    }

    /** Builds a {@link PostgresInboxConfig}; every setting starts at its default. */
    public static final class Builder {

        private String tableName = DEFAULT_TABLE_NAME;

        private Builder() {}

        /**
         * The inbox table, {@code table} or {@code schema.table}; default {@value #DEFAULT_TABLE_NAME}.
         * Validated by {@link #build()}.
         */
        public Builder tableName(String value) {
            this.tableName = Objects.requireNonNull(value, "tableName");
            return this;
        }

        /**
         * @throws InvalidConfigurationException naming {@value #TABLE_NAME_SETTING} when the table name is not
         *         a plain identifier
         */
        public PostgresInboxConfig build() {
            return new PostgresInboxConfig(this);
        }
    }
}
