package dev.outboxjava.postgres.internal.appendlog;

import static dev.outboxjava.postgres.internal.OutboxTable.ATTEMPTS;
import static dev.outboxjava.postgres.internal.OutboxTable.DESTINATION;
import static dev.outboxjava.postgres.internal.OutboxTable.ID;
import static dev.outboxjava.postgres.internal.OutboxTable.LEASED_AT;
import static dev.outboxjava.postgres.internal.OutboxTable.LEASE_ID;
import static dev.outboxjava.postgres.internal.OutboxTable.NEXT_ATTEMPT_AT;
import static dev.outboxjava.postgres.internal.OutboxTable.SENT_AT;
import static dev.outboxjava.postgres.internal.OutboxTable.SEQ;
import static dev.outboxjava.postgres.internal.OutboxTable.STATUS;
import static dev.outboxjava.postgres.internal.OutboxTable.column;
import static dev.outboxjava.postgres.internal.OutboxTable.statusLiteral;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.port.AuditEntry;
import dev.outboxjava.core.port.DeadLetterFilter;
import dev.outboxjava.postgres.internal.AttemptHistory;
import dev.outboxjava.postgres.internal.Identifiers;
import dev.outboxjava.postgres.internal.LogLayoutDdl;
import dev.outboxjava.postgres.internal.OperatorAudit;
import dev.outboxjava.postgres.internal.OperatorRepairs;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import org.jooq.CommonTableExpression;
import org.jooq.Condition;
import org.jooq.Record;
import org.jooq.Record2;
import org.jooq.Select;
import org.jooq.Table;
import org.jooq.impl.DSL;

/**
 * The operator's repairs in the append-only layout: the state row ({@code st}) is joined to the log row
 * ({@code e}); an event not leased yet is only in the log, so the pending view stands for the pending
 * events. A repair changes state rows, and deletes log rows only with their state rows.
 */
public final class LogRepairs extends OperatorRepairs {

    private final Table<Record> pendingView;

    public LogRepairs(Identifiers.TableName table, Ordering ordering, AttemptHistory attempts) {
        super(shape(table), ordering, attempts, new OperatorAudit(table));
        this.pendingView = OperatorAudit.named(LogLayoutDdl.pendingView(table));
    }

    private static Shape shape(Identifiers.TableName table) {
        Table<Record> events = OperatorAudit.named(table);
        Table<Record> states = OperatorAudit.named(LogLayoutDdl.stateTable(table));
        Table<Record> e = events.as("e");
        Table<Record> st = states.as("st");
        return new Shape(
                events,
                states,
                e,
                st,
                st.join(e).on(column(e, ID).eq(column(st, ID))),
                DSL.inline(null, SENT_AT.getDataType()).as(SENT_AT.getUnqualifiedName()),
                OperatorAudit.named(LogLayoutDdl.inFlightView(table)).as("f"));
    }

    @Override
    public long requeue(Connection connection, DeadLetterFilter filter, String actor, Instant now) throws SQLException {
        return inTransaction(connection, dsl -> {
            var requeued = dsl.update(st)
                    .set(STATUS, statusLiteral(EventStatus.PENDING))
                    .set(ATTEMPTS, DSL.inline(0))
                    .set(NEXT_ATTEMPT_AT, now)
                    .set(LEASE_ID, DSL.inline(null, LEASE_ID.getDataType()))
                    .set(LEASED_AT, DSL.inline(null, LEASED_AT.getDataType()))
                    .from(e)
                    .where(e(ID).eq(st(ID)))
                    .and(where(filter))
                    .returning(st(ID), st(SEQ));
            CommonTableExpression<?> changed = DSL.name("x").as(requeued);
            return audit.recordChanged(
                    dsl, List.of(changed), changed, now, actor, AuditEntry.REQUEUE, filter.describe());
        });
    }

    @Override
    public long purge(Connection connection, DeadLetterFilter filter, String actor, Instant now) throws SQLException {
        return inTransaction(connection, dsl -> {
            // one statement: the state rows, and the log rows of the same events
            CommonTableExpression<?> states = DSL.name("x")
                    .as(dsl.deleteFrom(st)
                            .using(e)
                            .where(e(ID).eq(st(ID)))
                            .and(where(filter))
                            .returning(st(ID), st(SEQ)));
            CommonTableExpression<?> events = DSL.name("y")
                    .as(dsl.deleteFrom(eventTable)
                            .where(ID.in(DSL.select(column(states, ID)).from(states)))
                            .returning(ID));
            return audit.recordChanged(
                    dsl,
                    List.of(states, events, attempts.deleteOf(states, ID)),
                    states,
                    now,
                    actor,
                    AuditEntry.PURGE,
                    filter.describe());
        });
    }

    @Override
    protected Table<Record> waitingTable() {
        return pendingView;
    }

    @Override
    protected Condition waiting(Table<?> w) {
        return DSL.noCondition(); // the pending view holds pending events only
    }

    @Override
    protected Select<Record2<String, String>> destinationRows() {
        return DSL.select(DESTINATION, STATUS)
                .from(pendingView)
                .unionAll(DSL.select(e(DESTINATION), st(STATUS))
                        .from(from)
                        .where(st(STATUS).eq(statusLiteral(EventStatus.FAILED))))
                .unionAll(DSL.select(e(DESTINATION), statusLiteral(EventStatus.IN_FLIGHT))
                        .from(inFlight)
                        .join(e)
                        .on(e(ID).eq(column(inFlight, ID))));
    }
}
