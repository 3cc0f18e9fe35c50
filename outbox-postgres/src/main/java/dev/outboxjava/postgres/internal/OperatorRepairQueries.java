package dev.outboxjava.postgres.internal;

import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.ActiveLease;
import dev.outboxjava.core.port.AuditEntry;
import dev.outboxjava.core.port.DeadLetterFilter;
import dev.outboxjava.core.port.DestinationCounts;
import dev.outboxjava.core.port.EventEdit;
import dev.outboxjava.core.port.EventPage;
import dev.outboxjava.core.port.HeldKey;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;

/**
 * The operator's finding, repairing and auditing ({@link dev.outboxjava.core.port.OperatorStore}) in
 * either layout. In the in-place layout the event and its state are one row ({@code e}); in the
 * append-only layout the state row ({@code s}) is joined to the log row ({@code e}). Each repair and
 * its audit row are one transaction.
 *
 * <p>Dead letters are paged by position ({@code seq > ?}, in the order of the dead letters' partial
 * index on {@code seq}), never by offset, so a page deep in a million dead letters costs what the first
 * one does.
 */
public final class OperatorRepairQueries {

    private final boolean log;
    private final String eventTable;
    private final String stateTable;
    /** {@code FROM} clause giving {@code e} (event columns) and {@code st} (state columns). */
    private final String from;
    private final String columns;
    private final String auditTable;
    /** The events' failed attempts, deleted with them. */
    private final String attemptsTable;
    private final Ordering ordering;
    private final String pendingView;
    /** Where in-flight events are: the state and lease tables' view in the append-only layout. */
    private final String inFlight;

    public OperatorRepairQueries(Identifiers.TableName table, boolean appendLog, Ordering ordering) {
        this.log = appendLog;
        this.ordering = ordering;
        this.eventTable = table.quoted();
        this.stateTable = appendLog ? LogLayoutDdl.stateTable(table).quoted() : table.quoted();
        this.from = appendLog ? stateTable + " st JOIN " + eventTable + " e ON e.id = st.id" : eventTable + " e";
        String st = appendLog ? "st" : "e";
        this.columns = "e.id, e.seq, e.type, e.source, e.event_key, e.destination, e.routing_key, e.content_type,"
                + " e.payload, e.headers, " + st + ".status, " + st + ".attempts, e.max_attempts, " + st
                + ".last_error, " + st + ".next_attempt_at, e.created_at, " + st + ".leased_at, " + st + ".lease_id, "
                + (appendLog ? "NULL::timestamptz" : "e.sent_at") + ", e.subject, e.data_schema";
        this.auditTable = table.quotedSibling(MigrationFiles.AUDIT_SUFFIX);
        this.attemptsTable = AttemptHistory.quotedTable(table);
        this.pendingView = LogLayoutDdl.pendingView(table).quoted();
        this.inFlight = appendLog ? LogLayoutDdl.inFlightView(table).quoted()
                : "(SELECT id, lease_id, leased_at FROM " + eventTable + " WHERE status = 'in_flight')";
    }

    /** The alias of the state columns. */
    private String st() {
        return log ? "st" : "e";
    }

    /** A filter as SQL conditions over {@code e}/{@code st}, with its binds. */
    private record Where(String sql, List<Object> binds) {
    }

    private Where where(DeadLetterFilter filter) {
        StringBuilder sql = new StringBuilder(st() + ".status = 'failed'");
        List<Object> binds = new ArrayList<>();
        if (!filter.ids().isEmpty()) {
            sql.append(" AND e.id = ANY(?)");
            binds.add(filter.ids());
        }
        filter.destination().ifPresent(v -> {
            sql.append(" AND e.destination = ?");
            binds.add(v);
        });
        filter.type().ifPresent(v -> {
            sql.append(" AND e.type = ?");
            binds.add(v);
        });
        filter.key().ifPresent(v -> {
            // the state table of the append-only layout carries the key, with an index
            sql.append(" AND ").append(st()).append(".event_key = ?");
            binds.add(v);
        });
        filter.errorContains().ifPresent(v -> {
            sql.append(" AND strpos(lower(").append(st()).append(".last_error), lower(?)) > 0");
            binds.add(v);
        });
        filter.createdFrom().ifPresent(v -> {
            sql.append(" AND e.created_at >= ?");
            binds.add(v);
            if (!log) {
                // redundant (it selects nothing more, nothing less) but it lets the page's scan in sequence order
                // start at the first dead letter of the range, found through the creation-time index
                // (seq + 0: the minimum is taken over the range's creation-time index entries, not by walking the
                // sequence index from its start until the first row of the range)
                sql.append(" AND e.seq >= (SELECT min(r.seq + 0) FROM ").append(eventTable)
                        .append(" r WHERE r.status = 'failed' AND r.created_at >= ?)");
                binds.add(v);
            }
        });
        filter.createdBefore().ifPresent(v -> {
            sql.append(" AND e.created_at < ?");
            binds.add(v);
        });
        return new Where(sql.toString(), binds);
    }

    /** The statement that lists a page; public so that benchmarks can EXPLAIN it. */
    public String findSql(DeadLetterFilter filter, boolean after) {
        return "SELECT " + columns + " FROM " + from + " WHERE " + where(filter).sql()
                + (after ? " AND " + st() + ".seq > ?" : "") + " ORDER BY " + st() + ".seq LIMIT ?";
    }

    public EventPage find(Connection connection, DeadLetterFilter filter, OptionalLong after, int limit)
            throws SQLException {
        Where where = where(filter);
        try (PreparedStatement statement = connection.prepareStatement(findSql(filter, after.isPresent()))) {
            int p = bind(connection, statement, 1, where.binds());
            if (after.isPresent()) {
                statement.setLong(p++, after.getAsLong());
            }
            statement.setInt(p, limit + 1);
            return EventPage.of(events(statement), limit);
        }
    }

    /** Counts up to {@code upTo} matches (a bounded count stays cheap however many rows match). */
    public long count(Connection connection, DeadLetterFilter filter, long upTo) throws SQLException {
        Where where = where(filter);
        boolean bounded = upTo < Long.MAX_VALUE;
        try (PreparedStatement statement = connection.prepareStatement(bounded
                ? "SELECT count(*) FROM (SELECT 1 FROM " + from + " WHERE " + where.sql() + " LIMIT ?) c"
                : "SELECT count(*) FROM " + from + " WHERE " + where.sql())) {
            int p = bind(connection, statement, 1, where.binds());
            if (bounded) {
                statement.setLong(p, upTo);
            }
            return single(statement);
        }
    }

    public long requeue(Connection connection, DeadLetterFilter filter, String actor, Instant now)
            throws SQLException {
        Where where = where(filter);
        String sql = log
                ? "UPDATE " + stateTable + " st SET status = 'pending', attempts = 0, next_attempt_at = ?,"
                        + " lease_id = NULL, leased_at = NULL FROM " + eventTable + " e WHERE e.id = st.id AND "
                        + where.sql()
                : "UPDATE " + eventTable + " e SET status = 'pending', attempts = 0, next_attempt_at = ?,"
                        + " lease_id = NULL, leased_at = NULL WHERE " + where.sql();
        return inTransaction(connection, () -> {
            long changed;
            try (PreparedStatement statement = connection.prepareStatement(sql)) {
                statement.setObject(1, Jdbc.timestamptz(now));
                bind(connection, statement, 2, where.binds());
                changed = statement.executeUpdate();
            }
            audit(connection, now, actor, AuditEntry.REQUEUE, filter.describe(), changed, null, null, null);
            return changed;
        });
    }

    public long purge(Connection connection, DeadLetterFilter filter, String actor, Instant now)
            throws SQLException {
        Where where = where(filter);
        String withAttempts = ", a AS (DELETE FROM " + attemptsTable + " WHERE event_id IN (SELECT id FROM x))";
        String sql = log
                ? "WITH x AS (DELETE FROM " + stateTable + " st USING " + eventTable + " e WHERE e.id = st.id AND "
                        + where.sql() + " RETURNING st.id), y AS (DELETE FROM " + eventTable
                        + " WHERE id IN (SELECT id FROM x))" + withAttempts + " SELECT count(*) FROM x"
                : "WITH x AS (DELETE FROM " + eventTable + " e WHERE " + where.sql()
                        + " RETURNING e.id)" + withAttempts + " SELECT count(*) FROM x";
        return inTransaction(connection, () -> {
            long deleted;
            try (PreparedStatement statement = connection.prepareStatement(sql)) {
                bind(connection, statement, 1, where.binds());
                deleted = single(statement);
            }
            audit(connection, now, actor, AuditEntry.PURGE, filter.describe(), deleted, null, null, null);
            return deleted;
        });
    }

    /** Runs a repair made elsewhere and records its audit entry, in one transaction. */
    public long audited(Connection connection, Instant now, String actor, String action, String selection,
            TransactionBody<Long> repair) throws SQLException {
        return inTransaction(connection, () -> {
            long affected = repair.run();
            audit(connection, now, actor, action, selection, affected, null, null, null);
            return affected;
        });
    }

    public Optional<OutboxEvent> editAndRequeue(Connection connection, UUID eventId, EventEdit edit, String actor,
            Instant now) throws SQLException {
        return inTransaction(connection, () -> {
            byte[] originalPayload;
            String originalHeaders;
            try (PreparedStatement statement = connection.prepareStatement("SELECT e.payload, e.headers::text FROM "
                    + from + " WHERE e.id = ? AND " + st() + ".status = 'failed' FOR UPDATE")) {
                statement.setObject(1, eventId);
                try (ResultSet rs = statement.executeQuery()) {
                    if (!rs.next()) {
                        return Optional.empty();
                    }
                    originalPayload = rs.getBytes(1);
                    originalHeaders = rs.getString(2);
                }
            }
            try (PreparedStatement statement = connection.prepareStatement("UPDATE " + eventTable
                    + " SET payload = ?, headers = ?::jsonb WHERE id = ?")) {
                statement.setBytes(1, edit.payload());
                statement.setString(2, HeadersJson.write(edit.headers()));
                statement.setObject(3, eventId);
                statement.executeUpdate();
            }
            try (PreparedStatement statement = connection.prepareStatement("UPDATE " + stateTable
                    + " SET status = 'pending', attempts = 0, next_attempt_at = ?, lease_id = NULL, leased_at = NULL"
                    + " WHERE id = ? AND status = 'failed'")) {
                statement.setObject(1, Jdbc.timestamptz(now));
                statement.setObject(2, eventId);
                statement.executeUpdate();
            }
            audit(connection, now, actor, AuditEntry.EDIT_REQUEUE, "id=" + eventId, 1, eventId, originalPayload,
                    originalHeaders);
            try (PreparedStatement statement = connection.prepareStatement(
                    "SELECT " + columns + " FROM " + from + " WHERE e.id = ?")) {
                statement.setObject(1, eventId);
                return events(statement).stream().findFirst();
            }
        });
    }

    /** Keys held behind their earliest failed event (a dead letter that holds its key, or a retrying event). */
    public List<HeldKey> heldKeys(Connection connection, int limit) throws SQLException {
        if (!ordering.isPerKey()) {
            return List.of();
        }
        String st = st();
        String holds = "(" + st + ".status = 'pending' AND " + st + ".attempts > 0"
                + (ordering.deadLetterHoldsKey() ? " OR " + st + ".status = 'failed'" : "") + ")";
        // the events waiting behind: pending ones of the key, later in sequence; in the append-only layout
        // those not yet leased are only in the log, so the pending view counts them
        String waiting = log
                ? "(SELECT count(*) FROM " + pendingViewOf() + " w WHERE w.event_key = h.event_key AND w.seq > h.seq)"
                : "(SELECT count(*) FROM " + eventTable + " w WHERE w.event_key = h.event_key AND w.status = 'pending'"
                        + " AND w.seq > h.seq)";
        String sql = "SELECT * FROM (SELECT h.*, " + waiting + " AS waiting FROM (SELECT DISTINCT ON (e.event_key) "
                + columns + " FROM " + from + " WHERE e.event_key IS NOT NULL AND " + holds
                + " ORDER BY e.event_key, " + st + ".seq) h) k WHERE k.waiting > 0 ORDER BY k.seq LIMIT ?";
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setInt(1, limit);
            List<HeldKey> keys = new ArrayList<>();
            try (ResultSet rs = statement.executeQuery()) {
                while (rs.next()) {
                    OutboxEvent holder = EventRows.toEvent(rs);
                    keys.add(new HeldKey(holder.key().orElseThrow(), holder, rs.getLong(22)));
                }
            }
            return keys;
        }
    }

    /** The append-only layout's view of the pending events (new ones in the log and those in the state table). */
    private String pendingViewOf() {
        return pendingView;
    }

    public List<DestinationCounts> countByDestination(Connection connection, int limit) throws SQLException {
        String rows = log
                ? "SELECT destination, status FROM " + pendingViewOf() + " UNION ALL SELECT e.destination, st.status"
                        + " FROM " + from + " WHERE st.status = 'failed' UNION ALL SELECT e.destination, 'in_flight'"
                        + " FROM " + inFlight + " f JOIN " + eventTable + " e ON e.id = f.id"
                : "SELECT destination, status FROM " + eventTable + " WHERE status IN ('pending', 'in_flight', 'failed')";
        String sql = "SELECT destination, count(*) FILTER (WHERE status = 'pending'),"
                + " count(*) FILTER (WHERE status = 'in_flight'), count(*) FILTER (WHERE status = 'failed')"
                + " FROM (" + rows + ") r GROUP BY destination ORDER BY count(*) DESC, destination LIMIT ?";
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setInt(1, limit);
            List<DestinationCounts> counts = new ArrayList<>();
            try (ResultSet rs = statement.executeQuery()) {
                while (rs.next()) {
                    counts.add(new DestinationCounts(rs.getString(1), rs.getLong(2), rs.getLong(3), rs.getLong(4)));
                }
            }
            return counts;
        }
    }

    public List<ActiveLease> activeLeases(Connection connection, int limit) throws SQLException {
        String sql = "SELECT lease_id, count(*), min(leased_at) FROM " + inFlight
                + " f GROUP BY lease_id ORDER BY min(leased_at) LIMIT ?";
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setInt(1, limit);
            List<ActiveLease> leases = new ArrayList<>();
            try (ResultSet rs = statement.executeQuery()) {
                while (rs.next()) {
                    leases.add(new ActiveLease(Jdbc.uuid(rs, 1), rs.getLong(2), Jdbc.instant(rs, 3)));
                }
            }
            return leases;
        }
    }

    public List<AuditEntry> auditTrail(Connection connection, OptionalLong before, int limit) throws SQLException {
        String sql = "SELECT id, at, actor, action, selection, affected, event_id, original_payload,"
                + " original_headers::text FROM " + auditTable + (before.isPresent() ? " WHERE id < ?" : "")
                + " ORDER BY id DESC LIMIT ?";
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            int p = 1;
            if (before.isPresent()) {
                statement.setLong(p++, before.getAsLong());
            }
            statement.setInt(p, limit);
            List<AuditEntry> entries = new ArrayList<>();
            try (ResultSet rs = statement.executeQuery()) {
                while (rs.next()) {
                    String headers = rs.getString(9);
                    entries.add(new AuditEntry(rs.getLong(1), Jdbc.instant(rs, 2), rs.getString(3), rs.getString(4),
                            rs.getString(5), rs.getLong(6), Optional.ofNullable(Jdbc.uuid(rs, 7)),
                            Optional.ofNullable(rs.getBytes(8)), headers == null ? Map.of() : HeadersJson.read(headers)));
                }
            }
            return entries;
        }
    }

    private void audit(Connection connection, Instant at, String actor, String action, String selection,
            long affected, UUID eventId, byte[] originalPayload, String originalHeaders) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement("INSERT INTO " + auditTable
                + " (at, actor, action, selection, affected, event_id, original_payload, original_headers)"
                + " VALUES (?, ?, ?, ?, ?, ?, ?, ?::jsonb)")) {
            statement.setObject(1, Jdbc.timestamptz(at));
            statement.setString(2, actor);
            statement.setString(3, action);
            statement.setString(4, selection);
            statement.setLong(5, affected);
            statement.setObject(6, eventId, Types.OTHER);
            statement.setBytes(7, originalPayload);
            statement.setString(8, originalHeaders);
            statement.executeUpdate();
        }
    }

    @SuppressWarnings("unchecked")
    private static int bind(Connection connection, PreparedStatement statement, int first, List<Object> binds)
            throws SQLException {
        int p = first;
        for (Object value : binds) {
            if (value instanceof java.util.Set<?> ids) {
                statement.setArray(p++, Jdbc.uuidArray(connection, (java.util.Set<UUID>) ids));
            } else if (value instanceof Instant instant) {
                statement.setObject(p++, Jdbc.timestamptz(instant));
            } else {
                statement.setString(p++, (String) value);
            }
        }
        return p;
    }

    private static List<OutboxEvent> events(PreparedStatement statement) throws SQLException {
        List<OutboxEvent> events = new ArrayList<>();
        try (ResultSet rs = statement.executeQuery()) {
            while (rs.next()) {
                events.add(EventRows.toEvent(rs));
            }
        }
        return events;
    }

    private static long single(PreparedStatement statement) throws SQLException {
        try (ResultSet rs = statement.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Work done in a repair's transaction. */
    @FunctionalInterface
    public interface TransactionBody<T> {
        T run() throws SQLException;
    }

    private static <T> T inTransaction(Connection connection, TransactionBody<T> body) throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        connection.setAutoCommit(false);
        try {
            T result = body.run();
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
