package dev.outboxjava.postgres.internal.inplace;

import static dev.outboxjava.postgres.internal.OutboxTable.ID;
import static dev.outboxjava.postgres.internal.OutboxTable.LEASED_AT;
import static dev.outboxjava.postgres.internal.OutboxTable.LEASE_ID;
import static dev.outboxjava.postgres.internal.OutboxTable.NEXT_ATTEMPT_AT;
import static dev.outboxjava.postgres.internal.OutboxTable.SEQ;
import static dev.outboxjava.postgres.internal.OutboxTable.STATUS;
import static dev.outboxjava.postgres.internal.OutboxTable.statusIs;
import static dev.outboxjava.postgres.internal.OutboxTable.statusLiteral;
import static dev.outboxjava.postgres.internal.PreparedSql.bind;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.postgres.internal.AsyncCommit;
import dev.outboxjava.postgres.internal.EventRows;
import dev.outboxjava.postgres.internal.Jdbc;
import dev.outboxjava.postgres.internal.OutboxTable;
import dev.outboxjava.postgres.internal.PreparedSql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * The lease statement — kept in this one place so an ordering variant (per-key, commit order) can
 * sit beside it. One statement, no transaction around it:
 *
 * <pre>
 * UPDATE t SET status = 'in_flight', lease_id = ?, leased_at = ?
 *   FROM (SELECT set_config('synchronous_commit', 'off', true)) AS async_commit
 *  WHERE id IN (SELECT id FROM t WHERE status = 'pending' AND next_attempt_at &lt;= ?
 *                ORDER BY seq LIMIT ? FOR UPDATE SKIP LOCKED)
 * RETURNING id, seq, type, ... (every column, in {@link EventRows#COLUMNS}' order)
 * </pre>
 *
 * <p><b>The lease commits asynchronously</b> ({@link AsyncCommit}, for its own transaction only):
 * its commit returns without waiting for the WAL flush. The lease is on every event's way to the
 * broker, and on a busy database most of its time went to that wait (queued behind the producers'
 * commits) and its slowest runs to disk stalls. Nothing depends on a lease being durable: if the
 * database crashes before the lease reaches the disk, the events are pending again after recovery and
 * are published again (at least once; the relay's marks then find the lease lost). Every mark still
 * commits synchronously, and flushing it flushes the lease before it.
 *
 * <p>The status literal is inlined (see {@link OutboxTable#statusIs}) so the partial index on pending
 * rows serves even a generic plan; the limit stays a bind value so the text never changes.
 *
 * <p>Built with jOOQ and rendered once ({@link PreparedSql}): this runs for every batch the relay takes,
 * so pgjdbc runs the constant text (server-prepared after {@code prepareThreshold} executions), the
 * values are bound with their types and the rows are read by position straight into events.
 */
public final class LeaseQuery {

    private final String sql;

    public LeaseQuery(OutboxTable table) {
        var due = DSL.select(ID)
                .from(table.table())
                .where(statusIs(EventStatus.PENDING))
                .and(NEXT_ATTEMPT_AT.le(bind(SQLDataType.INSTANT)))
                .orderBy(SEQ)
                .limit(bind(SQLDataType.INTEGER))
                .forUpdate()
                .skipLocked();
        this.sql = PreparedSql.render(DSL.update(table.table())
                .set(STATUS, statusLiteral(EventStatus.IN_FLIGHT))
                .set(LEASE_ID, bind(SQLDataType.UUID))
                .set(LEASED_AT, bind(SQLDataType.INSTANT))
                .from(DSL.select(AsyncCommit.THIS_TRANSACTION).asTable("async_commit"))
                .where(ID.in(due))
                .returning(OutboxTable.ALL));
    }

    /** The statement's text, to run or to EXPLAIN. Binds: lease id (uuid), now, now (timestamptz), limit (int). */
    public String sql() {
        return sql;
    }

    /** Runs the statement on {@code connection} (in auto-commit); the events come back in sequence order. */
    public List<OutboxEvent> lease(Connection connection, UUID leaseId, int limit, Instant now) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            OffsetDateTime at = Jdbc.timestamptz(now);
            statement.setObject(1, leaseId);
            statement.setObject(2, at);
            statement.setObject(3, at);
            statement.setInt(4, limit);
            return read(statement, limit);
        }
    }

    /** Executes a lease statement and reads its rows, sorted by sequence (RETURNING promises no order). */
    static List<OutboxEvent> read(PreparedStatement statement, int limit) throws SQLException {
        List<OutboxEvent> events = new ArrayList<>(Math.min(limit, 1024));
        try (ResultSet rs = statement.executeQuery()) {
            while (rs.next()) {
                events.add(EventRows.toEvent(rs));
            }
        }
        events.sort(Comparator.comparingLong(OutboxEvent::sequence));
        return Collections.unmodifiableList(events);
    }
}
