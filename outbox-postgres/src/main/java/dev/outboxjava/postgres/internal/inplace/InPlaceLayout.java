package dev.outboxjava.postgres.internal.inplace;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.Backlog;
import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.core.port.DeadLetterMark;
import dev.outboxjava.core.port.MarkResult;
import dev.outboxjava.core.port.RetryMark;
import dev.outboxjava.postgres.internal.AttemptHistory;
import dev.outboxjava.postgres.internal.BacklogQuery;
import dev.outboxjava.postgres.internal.HousekeepingQueries;
import dev.outboxjava.postgres.internal.Identifiers;
import dev.outboxjava.postgres.internal.Layout;
import dev.outboxjava.postgres.internal.MarkQueries;
import dev.outboxjava.postgres.internal.OperatorRepairs;
import dev.outboxjava.postgres.internal.OutboxTable;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;

/**
 * The in-place layout: one row per event, updated as it goes from pending to in flight to sent or failed.
 * Its statement families: the lease ({@link LeaseQuery}, or {@link OrderedLeaseQuery} under per-key
 * ordering, whose indexes {@link PerKeyIndexes} looks for), the marks ({@link MarkQueries}), the
 * housekeeping ({@link HousekeepingQueries}), the operator's reads ({@link InPlaceOperatorReads}) and
 * repairs ({@link InPlaceRepairs}).
 */
public final class InPlaceLayout implements Layout {

    /** No jOOQ debug logging of every statement: the marks sit on the relay's hot path. */
    private static final Settings SETTINGS = new Settings().withExecuteLogging(false);

    private final LeaseQuery leaseQuery;
    /** The per-key lease; {@code null} without per-key ordering. */
    private final OrderedLeaseQuery orderedLeaseQuery;

    private final PerKeyIndexes perKeyIndexes;
    private final MarkQueries marks;
    private final HousekeepingQueries housekeeping;
    private final InPlaceOperatorReads reads;
    private final BacklogQuery backlog;
    private final InPlaceAttempts attempts;
    private final InPlaceRepairs repairs;

    public InPlaceLayout(Identifiers.TableName tableName, CompletionMode completionMode, Ordering ordering) {
        OutboxTable table = new OutboxTable(tableName);
        this.leaseQuery = new LeaseQuery(table);
        this.orderedLeaseQuery = ordering.isPerKey() ? new OrderedLeaseQuery(table, ordering) : null;
        this.perKeyIndexes = new PerKeyIndexes(tableName);
        this.marks = new MarkQueries(table, completionMode);
        this.housekeeping = new HousekeepingQueries(table);
        this.reads = new InPlaceOperatorReads(table);
        this.backlog = new BacklogQuery(table, ordering);
        this.attempts = new InPlaceAttempts(tableName);
        this.repairs = new InPlaceRepairs(tableName, ordering, attempts);
    }

    private static DSLContext dsl(Connection connection) {
        return DSL.using(connection, SQLDialect.POSTGRES, SETTINGS);
    }

    @Override
    public List<OutboxEvent> lease(Connection connection, UUID leaseId, int limit, Instant now) throws SQLException {
        return orderedLeaseQuery == null
                ? leaseQuery.lease(connection, leaseId, limit, now)
                : orderedLeaseQuery.lease(connection, leaseId, limit, now);
    }

    /** The per-key lease works without its indexes, only slower and slower as the table grows. */
    @Override
    public List<String> missingIndexes(Connection connection) throws SQLException {
        return orderedLeaseQuery == null ? List.of() : perKeyIndexes.missing(connection);
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
    public int sweep(Connection connection, Instant leasedBefore, int limit) {
        return housekeeping.sweep(dsl(connection), leasedBefore, limit);
    }

    @Override
    public int cleanUp(Connection connection, Instant sentBefore, int limit) {
        return housekeeping.cleanUp(dsl(connection), sentBefore, limit);
    }

    @Override
    public long purge(Connection connection, EventStatus status, Instant createdBefore) {
        return housekeeping.purge(dsl(connection), status, createdBefore);
    }

    @Override
    public Map<EventStatus, Long> countByStatus(Connection connection) {
        return reads.countByStatus(dsl(connection));
    }

    @Override
    public Optional<Instant> oldestPendingCreatedAt(Connection connection) {
        return reads.oldestPendingCreatedAt(dsl(connection));
    }

    @Override
    public Backlog backlog(Connection connection, Instant now) {
        return backlog.read(dsl(connection), now);
    }

    @Override
    public Optional<OutboxEvent> find(Connection connection, UUID eventId) {
        return reads.find(dsl(connection), eventId);
    }

    @Override
    public List<OutboxEvent> retrying(Connection connection, int offset, int limit) {
        return reads.retrying(dsl(connection), offset, limit);
    }

    @Override
    public long countRetrying(Connection connection) {
        return reads.countRetrying(dsl(connection));
    }

    @Override
    public long countCreatedBefore(Connection connection, EventStatus status, Instant createdBefore) {
        return reads.countCreatedBefore(dsl(connection), status, createdBefore);
    }

    @Override
    public void probe(Connection connection) {
        reads.probe(dsl(connection));
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
