package dev.outboxjava.postgres.internal;

import dev.outboxjava.core.port.AuditEntry;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import org.jooq.CommonTableExpression;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.JSONB;
import org.jooq.Name;
import org.jooq.Record;
import org.jooq.SQLDialect;
import org.jooq.Table;
import org.jooq.conf.Settings;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * The operator's audit trail, the table {@code <table>_audit} (one row per repair, written in the repair's
 * transaction), and the transaction and failure handling the repairs of both layouts share: each runs
 * with jOOQ on the connection it is given and reports the driver's failure as the {@link SQLException} it
 * was, so the store words it as it does every other failure.
 */
public final class OperatorAudit {

    private static final Settings SETTINGS = new Settings().withExecuteLogging(false);

    private static final Field<Long> AUDIT_ID = DSL.field(DSL.name("id"), SQLDataType.BIGINT);
    private static final Field<Instant> AUDIT_AT = DSL.field(DSL.name("at"), SQLDataType.INSTANT);
    private static final Field<String> AUDIT_ACTOR = DSL.field(DSL.name("actor"), SQLDataType.CLOB);
    private static final Field<String> AUDIT_ACTION = DSL.field(DSL.name("action"), SQLDataType.CLOB);
    private static final Field<String> AUDIT_SELECTION = DSL.field(DSL.name("selection"), SQLDataType.CLOB);
    private static final Field<Long> AUDIT_AFFECTED = DSL.field(DSL.name("affected"), SQLDataType.BIGINT);
    private static final Field<UUID> AUDIT_EVENT_ID = DSL.field(DSL.name("event_id"), SQLDataType.UUID);
    private static final Field<byte[]> AUDIT_PAYLOAD = DSL.field(DSL.name("original_payload"), SQLDataType.BLOB);
    private static final Field<JSONB> AUDIT_HEADERS = DSL.field(DSL.name("original_headers"), SQLDataType.JSONB);

    private static final Field<byte[]> AUDIT_NEW_PAYLOAD = DSL.field(DSL.name("new_payload"), SQLDataType.BLOB);
    private static final Field<JSONB> AUDIT_NEW_HEADERS = DSL.field(DSL.name("new_headers"), SQLDataType.JSONB);
    private static final Field<UUID[]> AUDIT_EVENT_IDS = DSL.field(DSL.name("event_ids"), SQLDataType.UUID.array());

    private final Table<Record> auditTable;

    public OperatorAudit(Identifiers.TableName table) {
        this.auditTable = named(new Identifiers.TableName(table.schema(), table.table() + MigrationFiles.AUDIT_SUFFIX));
    }

    /** A table by its (possibly schema-qualified) name. */
    public static Table<Record> named(Identifiers.TableName name) {
        Name qualified =
                name.schema().map(schema -> DSL.name(schema, name.table())).orElse(DSL.name(name.table()));
        return DSL.table(qualified);
    }

    /** Runs a repair made elsewhere and records its audit entry, in one transaction. */
    public long audited(
            Connection connection, Instant now, String actor, String action, String selection, Repair repair)
            throws SQLException {
        return inTransaction(connection, dsl -> {
            long affected = repair.run();
            record(dsl, now, actor, action, selection, affected, null, null, null, null, null, List.of());
            return affected;
        });
    }

    /** A repair made elsewhere (e.g. the cleaner's purge of sent events), counting what it changed. */
    @FunctionalInterface
    public interface Repair {
        long run() throws SQLException;
    }

    public List<AuditEntry> auditTrail(Connection connection, OptionalLong before, int limit) throws SQLException {
        Field<String> headers = AUDIT_HEADERS.cast(SQLDataType.CLOB);
        Field<String> newHeaders = AUDIT_NEW_HEADERS.cast(SQLDataType.CLOB);
        return run(() -> dsl(connection)
                .select(
                        AUDIT_ID,
                        AUDIT_AT,
                        AUDIT_ACTOR,
                        AUDIT_ACTION,
                        AUDIT_SELECTION,
                        AUDIT_AFFECTED,
                        AUDIT_EVENT_ID,
                        AUDIT_PAYLOAD,
                        headers,
                        AUDIT_NEW_PAYLOAD,
                        newHeaders,
                        AUDIT_EVENT_IDS)
                .from(auditTable)
                .where(before.isPresent() ? AUDIT_ID.lt(before.getAsLong()) : DSL.noCondition())
                .orderBy(AUDIT_ID.desc())
                .limit(limit)
                .fetch(row -> new AuditEntry(
                        row.value1(),
                        row.value2(),
                        row.value3(),
                        row.value4(),
                        row.value5(),
                        row.value6(),
                        Optional.ofNullable(row.value7()),
                        Optional.ofNullable(row.value8()),
                        row.value9() == null ? Map.of() : HeadersJson.read(row.value9()),
                        Optional.ofNullable(row.value10()),
                        row.value11() == null ? Map.of() : HeadersJson.read(row.value11()),
                        row.value12() == null ? List.of() : List.of(row.value12()))));
    }

    /** Writes one audit row, in the repair's transaction. */
    public void record(
            DSLContext dsl,
            Instant at,
            String actor,
            String action,
            String selection,
            long affected,
            UUID eventId,
            byte[] originalPayload,
            String originalHeaders,
            byte[] newPayload,
            String newHeaders,
            List<UUID> eventIds) {
        dsl.insertInto(auditTable)
                .columns(
                        AUDIT_AT,
                        AUDIT_ACTOR,
                        AUDIT_ACTION,
                        AUDIT_SELECTION,
                        AUDIT_AFFECTED,
                        AUDIT_EVENT_ID,
                        AUDIT_PAYLOAD,
                        AUDIT_HEADERS,
                        AUDIT_NEW_PAYLOAD,
                        AUDIT_NEW_HEADERS,
                        AUDIT_EVENT_IDS)
                .values(
                        at,
                        actor,
                        action,
                        selection,
                        affected,
                        eventId,
                        originalPayload,
                        originalHeaders == null ? null : JSONB.valueOf(originalHeaders),
                        newPayload,
                        newHeaders == null ? null : JSONB.valueOf(newHeaders),
                        eventIds.isEmpty() ? null : eventIds.toArray(UUID[]::new))
                .execute();
    }

    /**
     * Runs a repair and writes its audit row in one statement: {@code changed}, the last of the
     * data-modifying {@code ctes}, returns the changed or removed events' {@code id} and {@code seq}; the row
     * counts them and keeps the first {@link AuditEntry#MAX_EVENT_IDS} ids in sequence order (the ids are
     * never all fetched into memory, however large the repair).
     *
     * @return how many events {@code changed} returned
     */
    public long recordChanged(
            DSLContext dsl,
            List<CommonTableExpression<?>> ctes,
            CommonTableExpression<?> changed,
            Instant at,
            String actor,
            String action,
            String selection) {
        Field<UUID> changedId = DSL.field(DSL.name(changed.getName(), "id"), SQLDataType.UUID);
        Field<Long> changedSeq = DSL.field(DSL.name(changed.getName(), "seq"), SQLDataType.BIGINT);
        Field<Long> affected = DSL.field(DSL.selectCount().from(changed)).coerce(SQLDataType.BIGINT);
        Field<UUID[]> ids = DSL.array(
                DSL.select(changedId).from(changed).orderBy(changedSeq).limit(DSL.inline(AuditEntry.MAX_EVENT_IDS)));
        Long count = dsl.with(ctes)
                .insertInto(auditTable)
                .columns(AUDIT_AT, AUDIT_ACTOR, AUDIT_ACTION, AUDIT_SELECTION, AUDIT_AFFECTED, AUDIT_EVENT_IDS)
                .select(DSL.select(DSL.val(at), DSL.val(actor), DSL.val(action), DSL.val(selection), affected, ids))
                .returning(AUDIT_AFFECTED)
                .fetchOne(AUDIT_AFFECTED);
        return count == null ? 0 : count;
    }

    public static DSLContext dsl(Connection connection) {
        return DSL.using(connection, SQLDialect.POSTGRES, SETTINGS);
    }

    /**
     * Runs a jOOQ call, reporting the driver's failure as the {@link SQLException} it was, so the store
     * words it as it does every other failure.
     */
    public static <T> T run(JooqCall<T> call) throws SQLException {
        try {
            return call.run();
        } catch (DataAccessException e) {
            SQLException cause = e.getCause(SQLException.class);
            if (cause != null) {
                throw cause;
            }
            throw e;
        }
    }

    /** Work done in a repair's transaction. */
    @FunctionalInterface
    public interface JooqCall<T> {
        T run() throws SQLException;
    }

    @FunctionalInterface
    public interface TransactionBody<T> {
        T run(DSLContext dsl) throws SQLException;
    }

    public static <T> T inTransaction(Connection connection, TransactionBody<T> body) throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        connection.setAutoCommit(false);
        try {
            T result = run(() -> body.run(dsl(connection)));
            connection.commit();
            return result;
        } catch (SQLException | RuntimeException e) {
            connection.rollback();
            throw e;
        } finally {
            connection.setAutoCommit(autoCommit);
        }
    }
}
