package dev.outboxjava.postgres.internal.inplace;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.select;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.postgres.internal.AttemptHistory;
import dev.outboxjava.postgres.internal.Identifiers;
import dev.outboxjava.postgres.internal.OutboxTable;
import java.time.Instant;
import java.util.UUID;
import org.jooq.Record1;
import org.jooq.Select;

/** The failed attempts in the in-place layout: the attempt counter and the status are on the event's row. */
public final class InPlaceAttempts extends AttemptHistory {

    public InPlaceAttempts(Identifiers.TableName table) {
        super(table, "");
    }

    @Override
    protected Select<Record1<UUID>> sentBefore(Instant sentBefore, int limit) {
        return select(OutboxTable.ID)
                .from(events)
                .where(OutboxTable.STATUS.eq(inline(EventStatus.SENT.databaseValue())))
                .and(OutboxTable.SENT_AT.lt(sentBefore))
                .orderBy(OutboxTable.SENT_AT)
                .limit(limit);
    }

    @Override
    protected Select<Record1<UUID>> purged(EventStatus status, Instant createdBefore) {
        return select(field(name("e", "id"), UUID.class))
                .from(events.as("e"))
                .where(field(name("e", "status"), String.class).eq(inline(status.databaseValue())))
                .and(field(name("e", "created_at"), Instant.class).lt(createdBefore));
    }
}
