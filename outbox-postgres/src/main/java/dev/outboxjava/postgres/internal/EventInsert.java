package dev.outboxjava.postgres.internal;

import static dev.outboxjava.postgres.internal.OutboxTable.ATTEMPTS;
import static dev.outboxjava.postgres.internal.OutboxTable.CONTENT_TYPE;
import static dev.outboxjava.postgres.internal.OutboxTable.CREATED_AT;
import static dev.outboxjava.postgres.internal.OutboxTable.DESTINATION;
import static dev.outboxjava.postgres.internal.OutboxTable.EVENT_KEY;
import static dev.outboxjava.postgres.internal.OutboxTable.HEADERS;
import static dev.outboxjava.postgres.internal.OutboxTable.ID;
import static dev.outboxjava.postgres.internal.OutboxTable.MAX_ATTEMPTS;
import static dev.outboxjava.postgres.internal.OutboxTable.NEXT_ATTEMPT_AT;
import static dev.outboxjava.postgres.internal.OutboxTable.PAYLOAD;
import static dev.outboxjava.postgres.internal.OutboxTable.ROUTING_KEY;
import static dev.outboxjava.postgres.internal.OutboxTable.SEQ;
import static dev.outboxjava.postgres.internal.OutboxTable.SOURCE;
import static dev.outboxjava.postgres.internal.OutboxTable.STATUS;
import static dev.outboxjava.postgres.internal.OutboxTable.TYPE;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.InvalidEventException;
import dev.outboxjava.core.OutboxEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.InsertValuesStepN;
import org.jooq.Record;
import org.jooq.Record2;
import org.jooq.impl.DSL;

/**
 * Appends events with multi-row INSERTs on whatever connection the context holds; it never commits,
 * rolls back or changes auto-commit — the caller's transaction decides.
 */
public final class EventInsert {

    /** Rows per INSERT: 14 bind values each keeps a statement far below the driver's 32,767 limit. */
    public static final int ROWS_PER_STATEMENT = 1000;

    private static final Field<?>[] COLUMNS = {ID, TYPE, SOURCE, EVENT_KEY, DESTINATION, ROUTING_KEY, CONTENT_TYPE,
        PAYLOAD, HEADERS, STATUS, ATTEMPTS, MAX_ATTEMPTS, NEXT_ATTEMPT_AT, CREATED_AT};

    private final OutboxTable table;

    public EventInsert(OutboxTable table) {
        this.table = table;
    }

    /** Inserts the events, one statement (one round trip) per {@value #ROWS_PER_STATEMENT}; returns them with sequences. */
    public List<OutboxEvent> insert(DSLContext dsl, List<OutboxEvent> events) {
        for (OutboxEvent event : events) {
            if (event.status() != EventStatus.PENDING) {
                throw new InvalidEventException("status", "only new pending events can be appended; event "
                        + event.id() + " is " + event.status());
            }
        }
        if (events.isEmpty()) {
            return List.of();
        }
        Map<UUID, Long> sequences = new HashMap<>();
        try {
            for (int from = 0; from < events.size(); from += ROWS_PER_STATEMENT) {
                List<OutboxEvent> chunk = events.subList(from, Math.min(events.size(), from + ROWS_PER_STATEMENT));
                InsertValuesStepN<Record> insert = dsl.insertInto(table.table()).columns(COLUMNS);
                for (OutboxEvent event : chunk) {
                    insert = insert.values(row(event));
                }
                for (Record2<UUID, Long> returned : insert.returningResult(ID, SEQ).fetch()) {
                    sequences.put(returned.value1(), returned.value2());
                }
            }
        } catch (RuntimeException e) {
            if (e instanceof dev.outboxjava.core.OutboxException) {
                throw e;
            }
            throw Failures.wrap("append " + events.size() + " event(s)", table.tableName(), e);
        }
        List<OutboxEvent> stored = new ArrayList<>(events.size());
        for (OutboxEvent event : events) {
            stored.add(event.withSequence(sequences.getOrDefault(event.id(), 0L)));
        }
        return stored;
    }

    private static Field<?>[] row(OutboxEvent event) {
        return new Field<?>[] {
            DSL.val(event.id(), ID),
            DSL.val(event.type(), TYPE),
            DSL.val(event.source(), SOURCE),
            DSL.val(event.key().orElse(null), EVENT_KEY),
            DSL.val(event.destination(), DESTINATION),
            DSL.val(event.routingKey(), ROUTING_KEY),
            DSL.val(event.contentType(), CONTENT_TYPE),
            DSL.val(event.payload(), PAYLOAD),
            DSL.val(HeadersJson.write(event.headers()), HEADERS),
            DSL.inline(EventStatus.PENDING.databaseValue(), STATUS),
            DSL.val(event.attempts(), ATTEMPTS),
            DSL.val(event.maxAttempts(), MAX_ATTEMPTS),
            DSL.val(event.nextAttemptAt(), NEXT_ATTEMPT_AT),
            DSL.val(event.createdAt(), CREATED_AT)
        };
    }
}
