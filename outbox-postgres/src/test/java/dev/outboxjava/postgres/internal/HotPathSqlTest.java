package dev.outboxjava.postgres.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.Ordering;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The hot path's SQL texts: built once, typed binds, status inlined (the partial indexes need it). */
class HotPathSqlTest {

    private final OutboxTable table = new OutboxTable(Identifiers.tableName("t", "billing.outbox_events"));

    @Test
    @DisplayName("rows are read by position in the order of OutboxTable.ALL")
    void columnOrder() {
        assertThat(EventRows.COLUMNS).isEqualTo("\"id\", \"seq\", \"type\", \"source\", \"event_key\", "
                + "\"destination\", \"routing_key\", \"content_type\", \"payload\", \"headers\", \"status\", "
                + "\"attempts\", \"max_attempts\", \"last_error\", \"next_attempt_at\", \"created_at\", "
                + "\"leased_at\", \"lease_id\", \"sent_at\", \"subject\", \"data_schema\"");
    }

    @Test
    @DisplayName("the lease inlines the statuses, binds the limit and returns every column")
    void lease() {
        String sql = new LeaseQuery(table).sql();
        assertThat(sql).startsWith("UPDATE \"billing\".\"outbox_events\" SET status = 'in_flight'")
                .contains("WHERE status = 'pending' AND next_attempt_at <= ?")
                .contains("LIMIT ? FOR UPDATE SKIP LOCKED")
                .endsWith("RETURNING " + EventRows.COLUMNS)
                .doesNotContain("cast(").doesNotContain("::");
        assertThat(sql.chars().filter(c -> c == '?')).hasSize(4);
    }

    @Test
    @DisplayName("the ordered lease binds lease id, three times and the limit, without casts")
    void orderedLease() {
        String sql = new OrderedLeaseQuery(table, Ordering.perKey(Ordering.AfterDeadLetter.HOLD_KEY)).sql();
        assertThat(sql).doesNotContain("cast(").doesNotContain("?::").endsWith("RETURNING " + EventRows.COLUMNS + "\n");
        assertThat(sql.chars().filter(c -> c == '?')).hasSize(5);
    }

    @Test
    @DisplayName("an INSERT text per row count, the same instance every time, 15 typed binds a row, nothing read back")
    void insert() {
        EventInsert insert = new EventInsert(table);
        String one = insert.sql(1);
        assertThat(one).isSameAs(insert.sql(1))
                .isEqualTo("INSERT INTO \"billing\".\"outbox_events\" (id, type, source, event_key, destination, "
                        + "routing_key, content_type, subject, data_schema, payload, headers, status, attempts, "
                        + "max_attempts, next_attempt_at, created_at) "
                        + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, 'pending', ?, ?, ?, ?)");
        assertThat(insert.sql(EventInsert.ROWS_PER_STATEMENT)).isSameAs(insert.sql(EventInsert.ROWS_PER_STATEMENT));
        assertThat(insert.sql(300)).isEqualTo(insert.sql(300));
        assertThat(insert.sql(3).chars().filter(c -> c == '?')).hasSize(3 * 15);
    }
}
