package dev.outboxjava.postgres.internal;

import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.port.Backlog;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Optional;
import org.jooq.DSLContext;
import org.jooq.Record;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * The pending events by what they wait for ({@link Backlog}), in one statement over the pending rows.
 *
 * <p>Under per-key ordering a due event is held when an earlier event of its key waits: pending but not
 * due (a retry, a schedule), or (when the ordering holds keys) dead-lettered. The blockers are gathered
 * once into each key's first blocking sequence and joined to the pending rows, so each row is looked at
 * once. Two things that also keep the lease ({@link OrderedLeaseQuery}) from an event do not make it held,
 * because they pass by themselves: an earlier event of its key in flight (it goes once that one is
 * acknowledged) and the commit-order guard (it goes once the transactions older than it end).
 */
public final class BacklogQuery {

    private final String sql;

    public BacklogQuery(OutboxTable table, Ordering ordering) {
        String t = table.quotedName();
        if (ordering.isPerKey()) {
            String deadLetters = ordering.deadLetterHoldsKey() ? """
                          UNION ALL
                          SELECT event_key, seq FROM %1$s WHERE status = 'failed' AND event_key IS NOT NULL
                    """.formatted(t) : "";
            this.sql = """
                    WITH blocked AS (
                      SELECT event_key, min(seq) AS seq FROM (
                          SELECT event_key, seq FROM %1$s
                           WHERE status = 'pending' AND next_attempt_at > {0} AND event_key IS NOT NULL
                    %2$s  ) blocker GROUP BY event_key)
                    SELECT count(*) FILTER (WHERE p.next_attempt_at <= {0} AND (b.seq IS NULL OR b.seq > p.seq)),
                           min(greatest(p.created_at, p.next_attempt_at))
                               FILTER (WHERE p.next_attempt_at <= {0} AND (b.seq IS NULL OR b.seq > p.seq)),
                           count(*) FILTER (WHERE p.next_attempt_at > {0} AND p.attempts > 0),
                           count(*) FILTER (WHERE p.next_attempt_at > {0} AND p.attempts = 0),
                           count(*) FILTER (WHERE p.next_attempt_at <= {0} AND b.seq < p.seq)
                      FROM %1$s p LEFT JOIN blocked b ON b.event_key = p.event_key
                     WHERE p.status = 'pending'
                    """.formatted(t, deadLetters);
        } else {
            this.sql = """
                    SELECT count(*) FILTER (WHERE next_attempt_at <= {0}),
                           min(greatest(created_at, next_attempt_at)) FILTER (WHERE next_attempt_at <= {0}),
                           count(*) FILTER (WHERE next_attempt_at > {0} AND attempts > 0),
                           count(*) FILTER (WHERE next_attempt_at > {0} AND attempts = 0),
                           0
                      FROM %1$s
                     WHERE status = 'pending'
                    """.formatted(t);
        }
    }

    /** Reads the backlog as of {@code now}. */
    public Backlog read(DSLContext dsl, Instant now) {
        Record row = dsl.resultQuery(sql, DSL.val(Jdbc.timestamptz(now), SQLDataType.TIMESTAMPWITHTIMEZONE))
                .fetchOne();
        return new Backlog(count(row, 0), Optional.ofNullable(row.get(1, OffsetDateTime.class))
                .map(OffsetDateTime::toInstant), count(row, 2), count(row, 3), count(row, 4));
    }

    private static long count(Record row, int index) {
        Number value = row.get(index, Long.class);
        return value == null ? 0 : value.longValue();
    }
}
