package dev.outboxjava.postgres.internal;

import static dev.outboxjava.postgres.internal.OutboxTable.ATTEMPTS;
import static dev.outboxjava.postgres.internal.OutboxTable.CONTENT_TYPE;
import static dev.outboxjava.postgres.internal.OutboxTable.CREATED_AT;
import static dev.outboxjava.postgres.internal.OutboxTable.DESTINATION;
import static dev.outboxjava.postgres.internal.OutboxTable.EVENT_KEY;
import static dev.outboxjava.postgres.internal.OutboxTable.HEADERS;
import static dev.outboxjava.postgres.internal.OutboxTable.ID;
import static dev.outboxjava.postgres.internal.OutboxTable.LAST_ERROR;
import static dev.outboxjava.postgres.internal.OutboxTable.LEASED_AT;
import static dev.outboxjava.postgres.internal.OutboxTable.LEASE_ID;
import static dev.outboxjava.postgres.internal.OutboxTable.MAX_ATTEMPTS;
import static dev.outboxjava.postgres.internal.OutboxTable.NEXT_ATTEMPT_AT;
import static dev.outboxjava.postgres.internal.OutboxTable.PAYLOAD;
import static dev.outboxjava.postgres.internal.OutboxTable.ROUTING_KEY;
import static dev.outboxjava.postgres.internal.OutboxTable.SENT_AT;
import static dev.outboxjava.postgres.internal.OutboxTable.SEQ;
import static dev.outboxjava.postgres.internal.OutboxTable.SOURCE;
import static dev.outboxjava.postgres.internal.OutboxTable.STATUS;
import static dev.outboxjava.postgres.internal.OutboxTable.TYPE;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.OutboxEvent;
import java.util.Optional;
import org.jooq.Record;

/** Maps table rows to {@link OutboxEvent}s. */
public final class EventRows {

    private EventRows() {
    }

    public static OutboxEvent toEvent(Record row) {
        return OutboxEvent.restore()
                .id(row.get(ID))
                .sequence(row.get(SEQ))
                .type(row.get(TYPE))
                .source(row.get(SOURCE))
                .key(Optional.ofNullable(row.get(EVENT_KEY)))
                .destination(row.get(DESTINATION))
                .routingKey(row.get(ROUTING_KEY))
                .contentType(row.get(CONTENT_TYPE))
                .payload(row.get(PAYLOAD))
                .headers(HeadersJson.read(row.get(HEADERS)))
                .status(EventStatus.fromDatabaseValue(row.get(STATUS)))
                .attempts(row.get(ATTEMPTS))
                .maxAttempts(row.get(MAX_ATTEMPTS))
                .lastError(Optional.ofNullable(row.get(LAST_ERROR)))
                .nextAttemptAt(row.get(NEXT_ATTEMPT_AT))
                .createdAt(row.get(CREATED_AT))
                .leasedAt(Optional.ofNullable(row.get(LEASED_AT)))
                .leaseId(Optional.ofNullable(row.get(LEASE_ID)))
                .sentAt(Optional.ofNullable(row.get(SENT_AT)))
                .build();
    }
}
