package dev.outboxjava.postgres.internal.appendlog;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.Backlog;
import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.core.port.DeadLetterMark;
import dev.outboxjava.core.port.MarkResult;
import dev.outboxjava.core.port.RetryMark;
import dev.outboxjava.postgres.internal.AttemptHistory;
import dev.outboxjava.postgres.internal.Identifiers;
import dev.outboxjava.postgres.internal.Layout;
import dev.outboxjava.postgres.internal.OperatorRepairs;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The append-only layout ({@link dev.outboxjava.postgres.internal.LogLayoutDdl}), the default: an event's
 * row in the log is never changed, so a transaction that holds back vacuum leaves no dead entries where the
 * lease reads. Its statement families: {@link LogLease} (with {@link LogReadSql}), {@link LogMarks},
 * {@link LogHousekeeping} (with {@link LogPartitions}), {@link LogOperatorReads}, {@link LogRepairs}.
 *
 * <p>Every statement is built with jOOQ's DSL; the relay's lease and marks are rendered once, here
 * ({@link dev.outboxjava.postgres.internal.PreparedSql}), and run by pgjdbc as constant texts with typed bind
 * values.
 */
public final class AppendLogLayout implements Layout {

    private final LogLease lease;
    private final LogMarks marks;
    private final LogHousekeeping housekeeping;
    private final LogOperatorReads reads;
    private final LogRepairs repairs;
    private final LogAttempts attempts;

    public AppendLogLayout(Identifiers.TableName table, CompletionMode completionMode, Ordering ordering) {
        this.lease = new LogLease(table, ordering);
        this.marks = new LogMarks(table);
        this.housekeeping = new LogHousekeeping(table, completionMode);
        this.reads = new LogOperatorReads(table, completionMode, ordering);
        this.attempts = new LogAttempts(table);
        this.repairs = new LogRepairs(table, ordering, attempts);
    }

    @Override
    public List<OutboxEvent> lease(Connection connection, UUID leaseId, int limit, Instant now) throws SQLException {
        return lease.lease(connection, leaseId, limit, now);
    }

    @Override
    public List<String> missingIndexes(Connection connection) {
        return List.of(); // the layout's indexes come with its tables
    }

    @Override
    public MarkResult published(Connection connection, UUID leaseId, Collection<UUID> eventIds, Instant now)
            throws SQLException {
        return marks.published(connection, leaseId, eventIds, now);
    }

    @Override
    public MarkResult retry(Connection connection, UUID leaseId, Collection<RetryMark> retryMarks) throws SQLException {
        return marks.retry(connection, leaseId, retryMarks);
    }

    @Override
    public MarkResult deadLettered(Connection connection, UUID leaseId, Collection<DeadLetterMark> deadLetterMarks)
            throws SQLException {
        return marks.deadLettered(connection, leaseId, deadLetterMarks);
    }

    @Override
    public MarkResult released(Connection connection, UUID leaseId, Collection<UUID> eventIds) throws SQLException {
        return marks.released(connection, leaseId, eventIds);
    }

    @Override
    public int sweep(Connection connection, Instant leasedBefore, int limit) throws SQLException {
        return housekeeping.sweep(connection, leasedBefore, limit);
    }

    @Override
    public int cleanUp(Connection connection, Instant sentBefore, int limit) throws SQLException {
        return housekeeping.cleanUp(connection, sentBefore, limit);
    }

    @Override
    public long purge(Connection connection, EventStatus status, Instant createdBefore) throws SQLException {
        return housekeeping.purge(connection, status, createdBefore);
    }

    @Override
    public Map<EventStatus, Long> countByStatus(Connection connection) throws SQLException {
        return reads.countByStatus(connection);
    }

    @Override
    public Optional<Instant> oldestPendingCreatedAt(Connection connection) throws SQLException {
        return reads.oldestPendingCreatedAt(connection);
    }

    @Override
    public Backlog backlog(Connection connection, Instant now) {
        return reads.backlog(connection, now);
    }

    @Override
    public Optional<OutboxEvent> find(Connection connection, UUID eventId) throws SQLException {
        return reads.find(connection, eventId);
    }

    @Override
    public List<OutboxEvent> retrying(Connection connection, int offset, int limit) throws SQLException {
        return reads.retrying(connection, offset, limit);
    }

    @Override
    public long countRetrying(Connection connection) throws SQLException {
        return reads.countRetrying(connection);
    }

    @Override
    public long countCreatedBefore(Connection connection, EventStatus status, Instant createdBefore)
            throws SQLException {
        return reads.countCreatedBefore(connection, status, createdBefore);
    }

    @Override
    public void probe(Connection connection) throws SQLException {
        reads.probe(connection);
    }

    @Override
    public OperatorRepairs repairs() {
        return repairs;
    }

    @Override
    public AttemptHistory attempts() {
        return attempts;
    }
}
