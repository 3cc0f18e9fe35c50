package dev.outboxjava.postgres.internal.inplace;

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
import static dev.outboxjava.postgres.internal.OutboxTable.statusIs;
import static dev.outboxjava.postgres.internal.OutboxTable.statusLiteral;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.port.AuditEntry;
import dev.outboxjava.core.port.DeadLetterFilter;
import dev.outboxjava.postgres.internal.AttemptHistory;
import dev.outboxjava.postgres.internal.Identifiers;
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

/** The operator's repairs in the in-place layout: an event and its state are one row ({@code e}). */
public final class InPlaceRepairs extends OperatorRepairs {

    public InPlaceRepairs(Identifiers.TableName table, Ordering ordering, AttemptHistory attempts) {
        super(shape(table), ordering, attempts, new OperatorAudit(table));
    }

    private static Shape shape(Identifiers.TableName table) {
        Table<Record> events = OperatorAudit.named(table);
        Table<Record> e = events.as("e");
        Table<?> inFlight = DSL.select(ID, LEASE_ID, LEASED_AT)
                .from(events)
                .where(statusIs(EventStatus.IN_FLIGHT))
                .asTable("f");
        return new Shape(events, events, e, e, e, column(e, SENT_AT), inFlight);
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
                    .where(where(filter))
                    .returning(st(ID), st(SEQ));
            CommonTableExpression<?> changed = DSL.name("x").as(requeued);
            return audit.recordChanged(
                    dsl, List.of(changed), changed, now, actor, AuditEntry.REQUEUE, filter.describe());
        });
    }

    @Override
    public long purge(Connection connection, DeadLetterFilter filter, String actor, Instant now) throws SQLException {
        return inTransaction(connection, dsl -> {
            CommonTableExpression<?> events =
                    DSL.name("x").as(dsl.deleteFrom(e).where(where(filter)).returning(e(ID), e(SEQ)));
            return audit.recordChanged(
                    dsl,
                    List.of(events, attempts.deleteOf(events, ID)),
                    events,
                    now,
                    actor,
                    AuditEntry.PURGE,
                    filter.describe());
        });
    }

    @Override
    protected Table<Record> waitingTable() {
        return eventTable;
    }

    @Override
    protected Condition waiting(Table<?> w) {
        return column(w, STATUS).eq(statusLiteral(EventStatus.PENDING));
    }

    @Override
    protected Select<Record2<String, String>> destinationRows() {
        return DSL.select(DESTINATION, STATUS)
                .from(eventTable)
                .where(STATUS.in(
                        statusLiteral(EventStatus.PENDING),
                        statusLiteral(EventStatus.IN_FLIGHT),
                        statusLiteral(EventStatus.FAILED)));
    }
}
