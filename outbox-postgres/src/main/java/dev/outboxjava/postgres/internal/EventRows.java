package dev.outboxjava.postgres.internal;

import static dev.outboxjava.postgres.internal.OutboxTable.ATTEMPTS;
import static dev.outboxjava.postgres.internal.OutboxTable.CONTENT_TYPE;
import static dev.outboxjava.postgres.internal.OutboxTable.CREATED_AT;
import static dev.outboxjava.postgres.internal.OutboxTable.DATA_SCHEMA;
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
import static dev.outboxjava.postgres.internal.OutboxTable.SUBJECT;
import static dev.outboxjava.postgres.internal.OutboxTable.TYPE;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.OutboxEvent;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;
import org.jooq.JSONB;
import org.jooq.Record;

/** Maps table rows to {@link OutboxEvent}s. */
public final class EventRows {

    /**
     * Every column, quoted, in {@link OutboxTable#ALL}'s order: the list a hot-path statement selects or
     * returns so that {@link #toEvent(ResultSet)} can read it by position.
     */
    public static final String COLUMNS = Arrays.stream(OutboxTable.ALL)
            .map(field -> field.getUnqualifiedName().quotedName().toString())
            .collect(Collectors.joining(", "));

    private EventRows() {}

    /**
     * The current row of a result that selected {@link #COLUMNS}, read by position straight into the
     * event (the hot path: no intermediate record, headers {@code {}} without Jackson).
     */
    public static OutboxEvent toEvent(ResultSet rs) throws SQLException {
        String key = rs.getString(5);
        String lastError = rs.getString(14);
        return OutboxEvent.restore()
                .id(Jdbc.uuid(rs, 1))
                .sequence(rs.getLong(2))
                .type(rs.getString(3))
                .source(rs.getString(4))
                .key(Optional.ofNullable(key))
                .destination(rs.getString(6))
                .routingKey(rs.getString(7))
                .contentType(rs.getString(8))
                .payload(rs.getBytes(9))
                .headers(HeadersJson.read(rs.getString(10)))
                .status(EventStatus.fromDatabaseValue(rs.getString(11)))
                .attempts(rs.getInt(12))
                .maxAttempts(rs.getInt(13))
                .lastError(Optional.ofNullable(lastError))
                .nextAttemptAt(Jdbc.instant(rs, 15))
                .createdAt(Jdbc.instant(rs, 16))
                .leasedAt(Optional.ofNullable(Jdbc.instant(rs, 17)))
                .leaseId(Optional.ofNullable(Jdbc.uuid(rs, 18)))
                .sentAt(Optional.ofNullable(Jdbc.instant(rs, 19)))
                .subject(Optional.ofNullable(rs.getString(20)))
                .dataSchema(Optional.ofNullable(rs.getString(21)))
                .build();
    }

    /** A jOOQ record of {@link OutboxTable#ALL} (the operator's queries, which are not hot). */
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
                .headers(HeadersJson.read(headersText(row.get(HEADERS))))
                .status(EventStatus.fromDatabaseValue(row.get(STATUS)))
                .attempts(row.get(ATTEMPTS))
                .maxAttempts(row.get(MAX_ATTEMPTS))
                .lastError(Optional.ofNullable(row.get(LAST_ERROR)))
                .nextAttemptAt(row.get(NEXT_ATTEMPT_AT))
                .createdAt(row.get(CREATED_AT))
                .leasedAt(Optional.ofNullable(row.get(LEASED_AT)))
                .leaseId(Optional.ofNullable(row.get(LEASE_ID)))
                .sentAt(Optional.ofNullable(row.get(SENT_AT)))
                .subject(Optional.ofNullable(row.get(SUBJECT)))
                .dataSchema(Optional.ofNullable(row.get(DATA_SCHEMA)))
                .build();
    }

    private static String headersText(JSONB json) {
        return json == null ? null : json.data();
    }
}
