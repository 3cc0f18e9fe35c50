package dev.outboxjava.postgres.internal;

import static dev.outboxjava.postgres.internal.OutboxTable.ATTEMPTS;
import static dev.outboxjava.postgres.internal.OutboxTable.ID;
import static dev.outboxjava.postgres.internal.OutboxTable.LAST_ERROR;
import static dev.outboxjava.postgres.internal.OutboxTable.LEASED_AT;
import static dev.outboxjava.postgres.internal.OutboxTable.LEASE_ID;
import static dev.outboxjava.postgres.internal.OutboxTable.NEXT_ATTEMPT_AT;
import static dev.outboxjava.postgres.internal.OutboxTable.SENT_AT;
import static dev.outboxjava.postgres.internal.OutboxTable.STATUS;
import static dev.outboxjava.postgres.internal.OutboxTable.statusLiteral;
import static dev.outboxjava.postgres.internal.PreparedSql.bind;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.core.port.DeadLetterMark;
import dev.outboxjava.core.port.MarkResult;
import dev.outboxjava.core.port.RetryMark;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.jooq.Condition;
import org.jooq.Field;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * The fenced marks: one statement per outcome kind per batch, changing only rows that are still
 * in flight under the presented lease. Whatever the statement did not return is lease-lost.
 *
 * <p>Built with jOOQ and rendered once per table ({@link PreparedSql}: the relay runs one of these per
 * batch). The ids go as ONE typed {@code uuid[]} parameter, per-event values as typed arrays unnested
 * beside them — see {@link Jdbc} for why never as text.
 */
public final class MarkQueries {

    private final String publishedSql;
    private final String retrySql;
    private final String deadLetterSql;
    private final String releaseSql;
    private final boolean publishedBindsSentAt;

    public MarkQueries(OutboxTable table, CompletionMode completionMode) {
        Table<?> t = table.table();
        // The rows are found by primary key. "status || ''" keeps the planner off the in-flight partial
        // index: a generic plan estimated it tiny and intersected it with the primary key (BitmapAnd),
        // but every lease leaves an entry there that only vacuum removes, so under a steady flow each
        // mark walked thousands of dead entries (in a 2,000 events/s benchmark the marks took most of
        // the database's statement time).
        Condition stillHeld = LEASE_ID.eq(bind(SQLDataType.UUID))
                .and(STATUS.concat(DSL.inline("")).eq(statusLiteral(EventStatus.IN_FLIGHT)));
        Condition heldBy = ID.eq(DSL.any(bind(SQLDataType.UUID.array()))).and(stillHeld);
        this.publishedBindsSentAt = completionMode != CompletionMode.DELETE_ON_PUBLISH;
        this.publishedSql = PreparedSql.render(
                publishedBindsSentAt
                        ? DSL.update(t)
                                .set(STATUS, statusLiteral(EventStatus.SENT))
                                .set(SENT_AT, bind(SQLDataType.INSTANT))
                                .where(heldBy)
                                .returning(ID)
                        : DSL.deleteFrom(t).where(heldBy).returning(ID));

        // per-event values: typed arrays side by side, unnested in step, one row per event
        Field<UUID> markId = DSL.field(DSL.name("m", "m_id"), SQLDataType.UUID);
        Field<String> markError = DSL.field(DSL.name("m", "m_error"), SQLDataType.CLOB);
        Field<Instant> markNextAttempt = DSL.field(DSL.name("m", "m_next_attempt_at"), SQLDataType.INSTANT);
        Table<?> retryMarks = DSL.select(unnest(markId), unnest(markError), unnest(markNextAttempt))
                .asTable("m");
        this.retrySql = PreparedSql.render(DSL.update(t)
                .set(STATUS, statusLiteral(EventStatus.PENDING))
                .set(ATTEMPTS, ATTEMPTS.plus(DSL.inline(1)))
                .set(LAST_ERROR, markError)
                .set(NEXT_ATTEMPT_AT, markNextAttempt)
                .set(LEASE_ID, DSL.inline(null, LEASE_ID.getDataType()))
                .set(LEASED_AT, DSL.inline(null, LEASED_AT.getDataType()))
                .from(retryMarks)
                .where(ID.eq(markId))
                .and(stillHeld)
                .returning(ID));
        Table<?> deadLetterMarks = DSL.select(unnest(markId), unnest(markError)).asTable("m");
        this.deadLetterSql = PreparedSql.render(DSL.update(t)
                .set(STATUS, statusLiteral(EventStatus.FAILED))
                .set(ATTEMPTS, ATTEMPTS.plus(DSL.inline(1)))
                .set(LAST_ERROR, markError)
                .set(LEASE_ID, DSL.inline(null, LEASE_ID.getDataType()))
                .set(LEASED_AT, DSL.inline(null, LEASED_AT.getDataType()))
                .from(deadLetterMarks)
                .where(ID.eq(markId))
                .and(stillHeld)
                .returning(ID));
        this.releaseSql = PreparedSql.render(DSL.update(t)
                .set(STATUS, statusLiteral(EventStatus.PENDING))
                .set(LEASE_ID, DSL.inline(null, LEASE_ID.getDataType()))
                .set(LEASED_AT, DSL.inline(null, LEASED_AT.getDataType()))
                .where(heldBy)
                .returning(ID));
    }

    /** The published mark's text, to run or to EXPLAIN. Binds: [sent_at (timestamptz),] ids (uuid[]), lease id. */
    public String publishedSql() {
        return publishedSql;
    }

    /** The retry mark's text, to run or to EXPLAIN. Binds: ids (uuid[]), errors (text[]), next attempts (timestamptz[]), lease id. */
    public String retrySql() {
        return retrySql;
    }

    /** The dead-letter mark's text, to run or to EXPLAIN. Binds: ids (uuid[]), errors (text[]), lease id. */
    public String deadLetterSql() {
        return deadLetterSql;
    }

    public MarkResult published(Connection connection, UUID leaseId, Collection<UUID> eventIds, Instant now)
            throws SQLException {
        Set<UUID> ids = new HashSet<>(eventIds);
        if (ids.isEmpty()) {
            return MarkResult.empty();
        }
        try (PreparedStatement statement = connection.prepareStatement(publishedSql)) {
            int p = 1;
            if (publishedBindsSentAt) {
                statement.setObject(p++, Jdbc.timestamptz(now));
            }
            statement.setArray(p++, Jdbc.uuidArray(connection, ids));
            statement.setObject(p, leaseId);
            return result(ids, statement);
        }
    }

    public MarkResult retry(Connection connection, UUID leaseId, Collection<RetryMark> marks) throws SQLException {
        Map<UUID, RetryMark> byId = new LinkedHashMap<>();
        marks.forEach(mark -> byId.put(mark.eventId(), mark));
        if (byId.isEmpty()) {
            return MarkResult.empty();
        }
        String[] errors = new String[byId.size()];
        Instant[] nextAttempts = new Instant[byId.size()];
        int i = 0;
        for (RetryMark mark : byId.values()) {
            errors[i] = mark.error();
            nextAttempts[i++] = mark.nextAttemptAt();
        }
        try (PreparedStatement statement = connection.prepareStatement(retrySql)) {
            statement.setArray(1, Jdbc.uuidArray(connection, byId.keySet()));
            statement.setArray(2, Jdbc.textArray(connection, errors));
            statement.setArray(3, Jdbc.timestamptzArray(connection, nextAttempts));
            statement.setObject(4, leaseId);
            return result(byId.keySet(), statement);
        }
    }

    public MarkResult deadLettered(Connection connection, UUID leaseId, Collection<DeadLetterMark> marks)
            throws SQLException {
        Map<UUID, DeadLetterMark> byId = new LinkedHashMap<>();
        marks.forEach(mark -> byId.put(mark.eventId(), mark));
        if (byId.isEmpty()) {
            return MarkResult.empty();
        }
        String[] errors = byId.values().stream().map(DeadLetterMark::error).toArray(String[]::new);
        try (PreparedStatement statement = connection.prepareStatement(deadLetterSql)) {
            statement.setArray(1, Jdbc.uuidArray(connection, byId.keySet()));
            statement.setArray(2, Jdbc.textArray(connection, errors));
            statement.setObject(3, leaseId);
            return result(byId.keySet(), statement);
        }
    }

    public MarkResult released(Connection connection, UUID leaseId, Collection<UUID> eventIds) throws SQLException {
        Set<UUID> ids = new HashSet<>(eventIds);
        if (ids.isEmpty()) {
            return MarkResult.empty();
        }
        try (PreparedStatement statement = connection.prepareStatement(releaseSql)) {
            statement.setArray(1, Jdbc.uuidArray(connection, ids));
            statement.setObject(2, leaseId);
            return result(ids, statement);
        }
    }

    /**
     * {@code unnest(?) AS column}: the placeholder of one typed array of the column's values. Several in
     * one select list run in step (PostgreSQL 10+), as {@code unnest(a, b, c)} in FROM would.
     */
    private static <T> Field<T> unnest(Field<T> column) {
        return DSL.function(
                        "unnest",
                        column.getDataType(),
                        bind(column.getDataType().array()))
                .as(column.getUnqualifiedName());
    }

    /** Runs a mark; what it returned is marked, the rest of {@code requested} is lease-lost. */
    private static MarkResult result(Collection<UUID> requested, PreparedStatement statement) throws SQLException {
        Set<UUID> marked = new HashSet<>();
        try (ResultSet rs = statement.executeQuery()) {
            while (rs.next()) {
                marked.add(Jdbc.uuid(rs, 1));
            }
        }
        Set<UUID> lost = new HashSet<>(requested);
        lost.removeAll(marked);
        return new MarkResult(marked, lost);
    }
}
