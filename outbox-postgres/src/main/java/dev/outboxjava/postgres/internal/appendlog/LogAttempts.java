package dev.outboxjava.postgres.internal.appendlog;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.select;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.postgres.internal.AttemptHistory;
import dev.outboxjava.postgres.internal.Identifiers;
import java.time.Instant;
import java.util.UUID;
import org.jooq.Condition;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Record1;
import org.jooq.Select;
import org.jooq.Table;
import org.jooq.impl.DSL;

/**
 * The failed attempts in the append-only layout: the attempt counter is on the state row, a published
 * event has a sent record.
 */
public final class LogAttempts extends AttemptHistory {

    private static final String STATE_SUFFIX = "_state";

    /** The published events (keep-sent mode). */
    private final Table<Record> sent;
    /** The state rows: the attempt counters and the dead letters. */
    private final Table<Record> states;

    public LogAttempts(Identifiers.TableName table) {
        super(table, STATE_SUFFIX);
        this.sent = DSL.table(sibling(table, "_sent"));
        this.states = DSL.table(sibling(table, STATE_SUFFIX));
    }

    @Override
    protected Select<Record1<UUID>> sentBefore(Instant sentBefore, int limit) {
        return select(field(name("d", "id"), UUID.class))
                .from(sent.as("d"))
                .where(field(name("d", "sent_at"), Instant.class).lt(sentBefore))
                .orderBy(field(name("d", "sent_at")))
                .limit(limit);
    }

    @Override
    protected Select<Record1<UUID>> purged(EventStatus status, Instant createdBefore) {
        Field<UUID> eventId = field(name("e", "id"), UUID.class);
        Condition createdBeforeCutoff =
                field(name("e", "created_at"), Instant.class).lt(createdBefore);
        if (status == EventStatus.SENT) {
            return select(eventId)
                    .from(events.as("e"))
                    .join(sent.as("d"))
                    .on(field(name("d", "id"), UUID.class).eq(eventId))
                    .where(createdBeforeCutoff);
        }
        return select(eventId)
                .from(events.as("e"))
                .join(states.as("s"))
                .on(field(name("s", "id"), UUID.class).eq(eventId))
                .where(field(name("s", "status"), String.class).eq(inline(status.databaseValue())))
                .and(createdBeforeCutoff);
    }
}
