package dev.outboxjava.postgres.internal;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.name;

import dev.outboxjava.core.EventStatus;
import java.time.Instant;
import java.util.UUID;
import org.jooq.Condition;
import org.jooq.Field;
import org.jooq.JSONB;
import org.jooq.Name;
import org.jooq.Record;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * One outbox table as jOOQ sees it: every statement on it is built with jOOQ's DSL from these fields
 * (the hot path's rendered once, see {@link PreparedSql}). The table name is configurable, so this is an
 * instance rather than generated code; columns are unqualified because most statements touch this one
 * table, and {@link #column(Table, Field)} qualifies one by an alias where a statement joins the table
 * to itself.
 */
public final class OutboxTable {

    public static final Field<UUID> ID = field(name("id"), SQLDataType.UUID);
    public static final Field<Long> SEQ = field(name("seq"), SQLDataType.BIGINT);
    public static final Field<String> TYPE = field(name("type"), SQLDataType.CLOB);
    public static final Field<String> SOURCE = field(name("source"), SQLDataType.CLOB);
    public static final Field<String> EVENT_KEY = field(name("event_key"), SQLDataType.CLOB);
    public static final Field<String> DESTINATION = field(name("destination"), SQLDataType.CLOB);
    public static final Field<String> ROUTING_KEY = field(name("routing_key"), SQLDataType.CLOB);
    public static final Field<String> CONTENT_TYPE = field(name("content_type"), SQLDataType.CLOB);
    public static final Field<byte[]> PAYLOAD = field(name("payload"), SQLDataType.BLOB);
    public static final Field<JSONB> HEADERS = field(name("headers"), SQLDataType.JSONB);
    public static final Field<String> STATUS = field(name("status"), SQLDataType.CLOB);
    public static final Field<Integer> ATTEMPTS = field(name("attempts"), SQLDataType.INTEGER);
    public static final Field<Integer> MAX_ATTEMPTS = field(name("max_attempts"), SQLDataType.INTEGER);
    public static final Field<String> LAST_ERROR = field(name("last_error"), SQLDataType.CLOB);
    public static final Field<Instant> NEXT_ATTEMPT_AT = field(name("next_attempt_at"), SQLDataType.INSTANT);
    public static final Field<Instant> CREATED_AT = field(name("created_at"), SQLDataType.INSTANT);
    public static final Field<Instant> LEASED_AT = field(name("leased_at"), SQLDataType.INSTANT);
    public static final Field<UUID> LEASE_ID = field(name("lease_id"), SQLDataType.UUID);
    public static final Field<Instant> SENT_AT = field(name("sent_at"), SQLDataType.INSTANT);
    /** CloudEvents {@code subject}; NULL when the event has none. */
    public static final Field<String> SUBJECT = field(name("subject"), SQLDataType.CLOB);
    /** CloudEvents {@code dataschema}; NULL when the event has none. */
    public static final Field<String> DATA_SCHEMA = field(name("data_schema"), SQLDataType.CLOB);

    /** Every column, in the order rows are read ({@link EventRows#toEvent(java.sql.ResultSet)} reads by position). */
    public static final Field<?>[] ALL = {
        ID,
        SEQ,
        TYPE,
        SOURCE,
        EVENT_KEY,
        DESTINATION,
        ROUTING_KEY,
        CONTENT_TYPE,
        PAYLOAD,
        HEADERS,
        STATUS,
        ATTEMPTS,
        MAX_ATTEMPTS,
        LAST_ERROR,
        NEXT_ATTEMPT_AT,
        CREATED_AT,
        LEASED_AT,
        LEASE_ID,
        SENT_AT,
        SUBJECT,
        DATA_SCHEMA
    };

    private final Identifiers.TableName tableName;
    private final Table<Record> table;

    public OutboxTable(Identifiers.TableName tableName) {
        this.tableName = tableName;
        Name qualified = tableName
                .schema()
                .map(schema -> DSL.name(schema, tableName.table()))
                .orElse(DSL.name(tableName.table()));
        this.table = DSL.table(qualified);
    }

    /** The jOOQ table. */
    public Table<Record> table() {
        return table;
    }

    /** The writing transaction ({@code xid8}); the per-key lease compares it with the snapshot's xmin. */
    public static final Field<Object> XACT_ID = field(name("xact_id"), SQLDataType.OTHER);

    /** The validated name, for messages. */
    public Identifiers.TableName tableName() {
        return tableName;
    }

    /**
     * {@code status = '<value>'} with the value INLINED, never bound: only a literal lets the planner
     * match the partial indexes' predicates in a generic (server-prepared) plan.
     */
    public static Condition statusIs(EventStatus status) {
        return STATUS.eq(DSL.inline(status.databaseValue()));
    }

    /** The status value as an inlined literal, for the reason given at {@link #statusIs}. */
    public static Field<String> statusLiteral(EventStatus status) {
        return DSL.inline(status.databaseValue());
    }

    /** {@code alias.column}: a column of this table under an alias (jOOQ knows no columns of a named table). */
    public static <T> Field<T> column(Table<?> alias, Field<T> column) {
        return field(alias.getQualifiedName().append(column.getUnqualifiedName()), column.getDataType());
    }
}
