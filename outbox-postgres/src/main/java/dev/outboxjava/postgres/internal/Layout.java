package dev.outboxjava.postgres.internal;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.Backlog;
import dev.outboxjava.core.port.DeadLetterMark;
import dev.outboxjava.core.port.MarkResult;
import dev.outboxjava.core.port.RetryMark;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * What a store layout does with its tables: the relay's lease and marks, the housekeeping, the operator's
 * reads and repairs. One implementation per layout ({@code inplace.InPlaceLayout}, {@code
 * appendlog.AppendLogLayout}); the store picks one when it is built and hands every call to it, wrapping
 * the failures and the attempts history around it.
 *
 * <p>Every method runs on the connection it is given, in auto-commit unless it says otherwise; a method
 * that needs a transaction (the lease, a repair) opens and ends its own and leaves the connection in
 * auto-commit.
 */
public interface Layout {

    /** Leases up to {@code limit} due events, in sequence order. */
    List<OutboxEvent> lease(Connection connection, UUID leaseId, int limit, Instant now) throws SQLException;

    /**
     * The indexes the lease relies on that the table lacks (per-key ordering in place); empty when there
     * are none to have, without a query.
     */
    List<String> missingIndexes(Connection connection) throws SQLException;

    MarkResult published(Connection connection, UUID leaseId, Collection<UUID> eventIds, Instant now)
            throws SQLException;

    MarkResult retry(Connection connection, UUID leaseId, Collection<RetryMark> marks) throws SQLException;

    MarkResult deadLettered(Connection connection, UUID leaseId, Collection<DeadLetterMark> marks) throws SQLException;

    MarkResult released(Connection connection, UUID leaseId, Collection<UUID> eventIds) throws SQLException;

    /** Expired leases back to pending; at most about {@code limit} events. */
    int sweep(Connection connection, Instant leasedBefore, int limit) throws SQLException;

    /** Deletes (about) up to {@code limit} events sent before the cutoff; returns how many went. */
    int cleanUp(Connection connection, Instant sentBefore, int limit) throws SQLException;

    /** Deletes the terminal events in {@code status} created before the cutoff, in chunks. */
    long purge(Connection connection, EventStatus status, Instant createdBefore) throws SQLException;

    Map<EventStatus, Long> countByStatus(Connection connection) throws SQLException;

    Optional<Instant> oldestPendingCreatedAt(Connection connection) throws SQLException;

    Backlog backlog(Connection connection, Instant now) throws SQLException;

    Optional<OutboxEvent> find(Connection connection, UUID eventId) throws SQLException;

    List<OutboxEvent> retrying(Connection connection, int offset, int limit) throws SQLException;

    long countRetrying(Connection connection) throws SQLException;

    long countCreatedBefore(Connection connection, EventStatus status, Instant createdBefore) throws SQLException;

    /** A statement that fails when the outbox table is missing or unreadable. */
    void probe(Connection connection) throws SQLException;

    /** The operator's finding, repairing and auditing over this layout's tables. */
    OperatorRepairs repairs();

    /** The failed attempts of this layout's events. */
    AttemptHistory attempts();
}
