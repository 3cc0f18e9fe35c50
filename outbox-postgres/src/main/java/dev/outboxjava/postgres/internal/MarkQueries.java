package dev.outboxjava.postgres.internal;

import static dev.outboxjava.postgres.internal.OutboxTable.statusLiteral;

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

/**
 * The fenced marks: one statement per outcome kind per batch, changing only rows that are still
 * in flight under the presented lease. Whatever the statement did not return is lease-lost.
 *
 * <p>Plain JDBC with texts built once per table (the relay runs one of these per batch). The ids go as
 * ONE typed {@code uuid[]} parameter, per-event values as typed arrays unnested beside them — see
 * {@link Jdbc} for why never as text cast in SQL.
 */
public final class MarkQueries {

    private final String publishedSql;
    private final String retrySql;
    private final String deadLetterSql;
    private final String releaseSql;
    private final boolean publishedBindsSentAt;

    public MarkQueries(OutboxTable table, CompletionMode completionMode) {
        String t = table.quotedName();
        // The rows are found by primary key. "status || ''" keeps the planner off the in-flight partial
        // index: a generic plan estimated it tiny and intersected it with the primary key (BitmapAnd),
        // but every lease leaves an entry there that only vacuum removes, so under a steady flow each
        // mark walked thousands of dead entries (in a 2,000 events/s benchmark the marks took most of
        // the database's statement time).
        String stillHeld = " AND lease_id = ? AND status || '' = " + statusLiteral(EventStatus.IN_FLIGHT)
                + " RETURNING id";
        String heldBy = " WHERE id = ANY(?)" + stillHeld;
        this.publishedBindsSentAt = completionMode != CompletionMode.DELETE_ON_PUBLISH;
        this.publishedSql = publishedBindsSentAt
                ? "UPDATE " + t + " SET status = " + statusLiteral(EventStatus.SENT) + ", sent_at = ?" + heldBy
                : "DELETE FROM " + t + heldBy;
        String fencedByMark = " WHERE id = m.m_id" + stillHeld;
        this.retrySql = "UPDATE " + t + " SET status = " + statusLiteral(EventStatus.PENDING)
                + ", attempts = attempts + 1, last_error = m.m_error, next_attempt_at = m.m_next_attempt_at,"
                + " lease_id = NULL, leased_at = NULL"
                + " FROM unnest(?::uuid[], ?::text[], ?::timestamptz[]) AS m (m_id, m_error, m_next_attempt_at)"
                + fencedByMark;
        this.deadLetterSql = "UPDATE " + t + " SET status = " + statusLiteral(EventStatus.FAILED)
                + ", attempts = attempts + 1, last_error = m.m_error, lease_id = NULL, leased_at = NULL"
                + " FROM unnest(?::uuid[], ?::text[]) AS m (m_id, m_error)"
                + fencedByMark;
        this.releaseSql = "UPDATE " + t + " SET status = " + statusLiteral(EventStatus.PENDING)
                + ", lease_id = NULL, leased_at = NULL" + heldBy;
    }

    /** The published mark's text, to run or to EXPLAIN. Binds: [sent_at (timestamptz),] ids (uuid[]), lease id. */
    public String publishedSql() {
        return publishedSql;
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
