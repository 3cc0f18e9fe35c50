package dev.outboxjava.postgres.internal;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.ActiveLease;
import dev.outboxjava.core.port.Attempt;
import dev.outboxjava.core.port.AuditEntry;
import dev.outboxjava.core.port.Backlog;
import dev.outboxjava.core.port.DeadLetterFilter;
import dev.outboxjava.core.port.DestinationCounts;
import dev.outboxjava.core.port.EventEdit;
import dev.outboxjava.core.port.EventPage;
import dev.outboxjava.core.port.FailureGroup;
import dev.outboxjava.core.port.HeldKey;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;

/**
 * The store's operator calls ({@link dev.outboxjava.core.port.OperatorStore}, and the reads and requeue of
 * {@link dev.outboxjava.core.port.OutboxStore}): the arguments checked, the layout's statements run on a
 * connection of the store, failures worded with where the audit and attempts tables come from.
 */
public final class OperatorCalls {

    private final StoreCalls calls;
    private final Layout layout;
    private final OperatorRepairs repairs;
    private final AttemptHistory attemptHistory;
    private final DSLContext dsl;
    private final String tableName;
    private final String migrationsLocation;
    /** Where the audit table comes from, for the message of a failure that may be its absence. */
    private final String auditHint;

    /**
     * @param dsl jOOQ over the store's data source
     * @param migrationsLocation where the migrations of the audit and attempts tables are
     */
    public OperatorCalls(StoreCalls calls, Layout layout, DSLContext dsl, String tableName, String migrationsLocation) {
        this.calls = calls;
        this.layout = layout;
        this.repairs = layout.repairs();
        this.attemptHistory = layout.attempts();
        this.dsl = dsl;
        this.tableName = tableName;
        this.migrationsLocation = migrationsLocation;
        this.auditHint = " (the audit table " + tableName + "_audit is created by ensureSchema() or the migrations in "
                + migrationsLocation + ")";
    }

    public EventPage findDeadLetters(DeadLetterFilter filter, OptionalLong after, int limit) {
        Objects.requireNonNull(filter, "filter");
        Objects.requireNonNull(after, "after");
        requirePositive(limit);
        return calls.withConnection(
                "find dead letters (" + filter.describe() + ")",
                connection -> repairs.find(connection, filter, after, limit));
    }

    public long countDeadLetters(DeadLetterFilter filter, long upTo) {
        Objects.requireNonNull(filter, "filter");
        if (upTo < 1) {
            return 0;
        }
        return calls.withConnection(
                "count dead letters (" + filter.describe() + ")",
                connection -> repairs.count(connection, filter, upTo));
    }

    public long requeueDeadLetters(DeadLetterFilter filter, String actor, Instant now) {
        Objects.requireNonNull(filter, "filter");
        Objects.requireNonNull(actor, "actor");
        Objects.requireNonNull(now, "now");
        return calls.withConnection(
                "requeue dead letters (" + filter.describe() + ")" + auditHint,
                connection -> repairs.requeue(connection, filter, actor, now));
    }

    public long purgeDeadLetters(DeadLetterFilter filter, String actor, Instant now) {
        Objects.requireNonNull(filter, "filter");
        Objects.requireNonNull(actor, "actor");
        Objects.requireNonNull(now, "now");
        return calls.withConnection(
                "purge dead letters (" + filter.describe() + ")" + auditHint,
                connection -> repairs.purge(connection, filter, actor, now));
    }

    public long purgeSent(Instant createdBefore, String actor, Instant now) {
        Objects.requireNonNull(createdBefore, "createdBefore");
        Objects.requireNonNull(actor, "actor");
        Objects.requireNonNull(now, "now");
        return calls.withConnection(
                "purge sent events" + auditHint,
                connection -> repairs.audited(
                        connection, now, actor, AuditEntry.PURGE, "status=sent, created<" + createdBefore, () -> {
                            DSLContext inTransaction = DSL.using(
                                    connection, SQLDialect.POSTGRES, new Settings().withExecuteLogging(false));
                            attemptHistory.deleteOfPurged(inTransaction, EventStatus.SENT, createdBefore);
                            return layout.purge(connection, EventStatus.SENT, createdBefore);
                        }));
    }

    public Optional<OutboxEvent> editAndRequeue(UUID eventId, EventEdit edit, String actor, Instant now) {
        Objects.requireNonNull(eventId, "eventId");
        Objects.requireNonNull(actor, "actor");
        Objects.requireNonNull(now, "now");
        edit.requireValid();
        return calls.withConnection(
                "edit and requeue dead letter " + eventId + auditHint,
                connection -> repairs.editAndRequeue(connection, eventId, edit, actor, now));
    }

    public List<HeldKey> heldKeys(int limit) {
        requirePositive(limit);
        return calls.withConnection("list held keys", connection -> repairs.heldKeys(connection, limit));
    }

    public List<DestinationCounts> countByDestination(int limit) {
        requirePositive(limit);
        return calls.withConnection(
                "count events by destination", connection -> repairs.countByDestination(connection, limit));
    }

    public List<ActiveLease> activeLeases(int limit) {
        requirePositive(limit);
        return calls.withConnection("list the leases held", connection -> repairs.activeLeases(connection, limit));
    }

    public List<AuditEntry> auditTrail(OptionalLong before, int limit) {
        Objects.requireNonNull(before, "before");
        requirePositive(limit);
        return calls.withConnection(
                "read the operator audit trail" + auditHint,
                connection -> repairs.auditTrail(connection, before, limit));
    }

    public List<Attempt> attempts(UUID eventId) {
        Objects.requireNonNull(eventId, "eventId");
        return calls.run(
                "read the failed attempts of event " + eventId + " (the table " + tableName
                        + "_attempts is created by ensureSchema() or the migrations in "
                        + migrationsLocation + ")",
                () -> attemptHistory.of(dsl, eventId));
    }

    public List<FailureGroup> failureGroups(int limit) {
        requirePositive(limit);
        return calls.withConnection(
                "group the failed events by cause",
                connection -> OperatorAudit.run(
                        () -> repairs.failures().failureGroups(OperatorAudit.dsl(connection), limit)));
    }

    public List<String> deadLetterValues(DeadLetterFilter.Field field, String containing, int limit) {
        Objects.requireNonNull(field, "field");
        Objects.requireNonNull(containing, "containing");
        requirePositive(limit);
        return calls.withConnection(
                "list the dead letters' values of " + field,
                connection -> OperatorAudit.run(() ->
                        repairs.failures().deadLetterValues(OperatorAudit.dsl(connection), field, containing, limit)));
    }

    public Map<UUID, Instant> deadLetteredAt(Set<UUID> eventIds) {
        Objects.requireNonNull(eventIds, "eventIds");
        return calls.withConnection(
                "read when " + eventIds.size() + " events were dead-lettered (the table " + tableName
                        + "_attempts is created by ensureSchema() or the migrations in " + migrationsLocation + ")",
                connection -> OperatorAudit.run(
                        () -> repairs.failures().deadLetteredAt(OperatorAudit.dsl(connection), eventIds)));
    }

    public long retryNow(Set<UUID> eventIds, String actor, Instant now) {
        Objects.requireNonNull(eventIds, "eventIds");
        Objects.requireNonNull(actor, "actor");
        Objects.requireNonNull(now, "now");
        if (eventIds.isEmpty()) {
            return 0; // no event named: nothing to do, nothing to audit
        }
        return calls.withConnection(
                "retry " + eventIds.size() + " events now" + auditHint,
                connection -> repairs.retrying().retryNow(connection, eventIds, actor, now));
    }

    public long deadLetterNow(Set<UUID> eventIds, String actor, Instant now) {
        Objects.requireNonNull(eventIds, "eventIds");
        Objects.requireNonNull(actor, "actor");
        Objects.requireNonNull(now, "now");
        if (eventIds.isEmpty()) {
            return 0; // no event named: nothing to do, nothing to audit
        }
        return calls.withConnection(
                "dead-letter " + eventIds.size() + " events now" + auditHint,
                connection -> repairs.retrying().deadLetterNow(connection, eventIds, actor, now));
    }

    private static void requirePositive(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1, was " + limit);
        }
    }

    public Map<EventStatus, Long> countByStatus() {
        return calls.withConnection("count events by status", layout::countByStatus);
    }

    public Optional<Instant> oldestPendingCreatedAt() {
        return calls.withConnection("find the oldest pending event", layout::oldestPendingCreatedAt);
    }

    public Backlog backlog(Instant now) {
        return calls.withConnection(
                "count the pending events by what they wait for", connection -> layout.backlog(connection, now));
    }

    public Optional<OutboxEvent> find(UUID eventId) {
        Objects.requireNonNull(eventId, "eventId");
        return calls.withConnection("find event " + eventId, connection -> layout.find(connection, eventId));
    }

    public List<OutboxEvent> listRetrying(int offset, int limit) {
        if (offset < 0 || limit < 0) {
            throw new IllegalArgumentException(
                    "offset and limit must not be negative, were " + offset + " and " + limit);
        }
        if (limit == 0) {
            return List.of();
        }
        return calls.withConnection(
                "list events waiting for a retry", connection -> layout.retrying(connection, offset, limit));
    }

    /** How many events wait for a retry (the whole of what {@code listRetrying} pages through). */
    public long countRetrying() {
        return calls.withConnection("count events waiting for a retry", layout::countRetrying);
    }

    /** How many events in {@code status} were created before {@code createdBefore}. Deletes nothing. */
    public long countPurgeable(EventStatus status, Instant createdBefore) {
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(createdBefore, "createdBefore");
        return calls.withConnection(
                "count " + status.databaseValue() + " events to purge",
                connection -> layout.countCreatedBefore(connection, status, createdBefore));
    }
}
