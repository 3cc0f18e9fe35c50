package dev.outboxjava.postgres.internal;

import static dev.outboxjava.postgres.internal.OutboxTable.ATTEMPTS;
import static dev.outboxjava.postgres.internal.OutboxTable.ID;
import static dev.outboxjava.postgres.internal.OutboxTable.LAST_ERROR;
import static dev.outboxjava.postgres.internal.OutboxTable.NEXT_ATTEMPT_AT;
import static dev.outboxjava.postgres.internal.OutboxTable.SEQ;
import static dev.outboxjava.postgres.internal.OutboxTable.STATUS;
import static dev.outboxjava.postgres.internal.OutboxTable.column;
import static dev.outboxjava.postgres.internal.OutboxTable.statusLiteral;

import dev.outboxjava.core.DeadLetterReason;
import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.port.AuditEntry;
import dev.outboxjava.core.port.DeadLetterFilter;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.jooq.CommonTableExpression;
import org.jooq.Condition;
import org.jooq.Record;
import org.jooq.Table;
import org.jooq.impl.DSL;

/**
 * The operator's repairs of events that wait for a retry, in either layout: they are the state rows
 * ({@code st}) that are pending after a failure, changed where they are as the relay's marks and the
 * requeue change them (so a dead letter of the append-only layout stays a state row, which keeps its key
 * when the ordering says so). Each is one statement with its audit row. An event in flight is not
 * pending, so it is left alone, and a relay that leases an event at the same moment either finds it
 * locked (and skips it) or has it already (and this repair no longer matches it).
 */
public final class RetryingRepairs {

    private final Table<Record> st;
    private final AttemptHistory attempts;
    private final OperatorAudit audit;

    RetryingRepairs(Table<Record> st, AttemptHistory attempts, OperatorAudit audit) {
        this.st = st;
        this.attempts = attempts;
        this.audit = audit;
    }

    private Condition retrying(Set<UUID> eventIds) {
        return column(st, ID)
                .eq(DSL.any(UuidArrays.of(eventIds)))
                .and(column(st, STATUS).eq(statusLiteral(EventStatus.PENDING)))
                .and(column(st, ATTEMPTS).gt(DSL.inline(0)));
    }

    private static String selection(Set<UUID> eventIds) {
        return DeadLetterFilter.any().withIds(eventIds).describe();
    }

    /** Due at {@code now}, attempts and last error kept. */
    public long retryNow(Connection connection, Set<UUID> eventIds, String actor, Instant now) throws SQLException {
        return OperatorAudit.inTransaction(connection, dsl -> {
            CommonTableExpression<?> changed = DSL.name("x")
                    .as(dsl.update(st)
                            .set(NEXT_ATTEMPT_AT, now)
                            .where(retrying(eventIds))
                            .returning(column(st, ID), column(st, SEQ)));
            return audit.recordChanged(
                    dsl, List.of(changed), changed, now, actor, AuditEntry.RETRY_NOW, selection(eventIds));
        });
    }

    /**
     * Dead letters now, last error and attempts kept, with a dead-letter attempt recorded as the operator's
     * ({@link AttemptHistory#deadLettersOf}).
     */
    public long deadLetterNow(Connection connection, Set<UUID> eventIds, String actor, Instant now)
            throws SQLException {
        return OperatorAudit.inTransaction(connection, dsl -> {
            CommonTableExpression<?> changed = DSL.name("x")
                    .as(dsl.update(st)
                            .set(STATUS, statusLiteral(EventStatus.FAILED))
                            .where(retrying(eventIds))
                            .returning(column(st, ID), column(st, SEQ), column(st, ATTEMPTS), column(st, LAST_ERROR)));
            CommonTableExpression<?> recorded = attempts.deadLettersOf(
                    changed, now, DeadLetterReason.operator().describe());
            return audit.recordChanged(
                    dsl, List.of(changed, recorded), changed, now, actor, AuditEntry.DEAD_LETTER, selection(eventIds));
        });
    }
}
