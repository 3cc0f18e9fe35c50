package dev.outboxjava.postgres.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.postgres.internal.inplace.LeaseQuery;
import dev.outboxjava.postgres.internal.inplace.OrderedLeaseQuery;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The hot path's statements as rendered once: what the binding code and the partial indexes rely on.
 * That they do what the store promises is the contract suites' business, their plans the *PlanIT's.
 */
class HotPathSqlTest {

    private final OutboxTable table = new OutboxTable(Identifiers.tableName("t", "billing.outbox_events"));

    @Test
    @DisplayName("rows are read by position in the order of OutboxTable.ALL")
    void columnOrder() {
        assertThat(EventRows.COLUMNS)
                .isEqualTo("\"id\", \"seq\", \"type\", \"source\", \"event_key\", "
                        + "\"destination\", \"routing_key\", \"content_type\", \"payload\", \"headers\", \"status\", "
                        + "\"attempts\", \"max_attempts\", \"last_error\", \"next_attempt_at\", \"created_at\", "
                        + "\"leased_at\", \"lease_id\", \"sent_at\", \"subject\", \"data_schema\"");
    }

    @Test
    @DisplayName("the lease inlines the statuses, binds lease id, time twice and limit, and returns every column")
    void lease() {
        String sql = new LeaseQuery(table).sql();
        assertThat(sql)
                .contains("\"status\" = 'in_flight'")
                .contains("\"status\" = 'pending'")
                .contains("for update skip locked")
                .endsWith("returning " + EventRows.COLUMNS);
        assertThat(placeholders(sql)).isEqualTo(4);
    }

    @Test
    @DisplayName(
            "the ordered lease binds lease id, three times, its window five times and the limit, and returns every column")
    void orderedLease() {
        for (Ordering.AfterDeadLetter after : Ordering.AfterDeadLetter.values()) {
            String sql = new OrderedLeaseQuery(table, Ordering.perKey(after)).sql();
            assertThat(sql).endsWith("returning " + EventRows.COLUMNS);
            assertThat(placeholders(sql)).as(after.name()).isEqualTo(10);
        }
    }

    @Test
    @DisplayName("each mark binds what its method sets, in that number, and returns only the ids")
    void marks() {
        MarkQueries keepSent = new MarkQueries(table, CompletionMode.KEEP_SENT);
        assertThat(placeholders(keepSent.publishedSql()))
                .as("sent_at, ids, lease id")
                .isEqualTo(3);
        assertThat(placeholders(new MarkQueries(table, CompletionMode.DELETE_ON_PUBLISH).publishedSql()))
                .as("ids, lease id")
                .isEqualTo(2);
        assertThat(keepSent.publishedSql()).endsWith("returning \"id\"").contains("'in_flight'");
    }

    @Test
    @DisplayName("an INSERT text per row count, the same instance every time, 15 typed binds a row, nothing read back")
    void insert() {
        EventInsert insert = new EventInsert(table);
        String one = insert.sql(1);
        assertThat(one).isSameAs(insert.sql(1)).contains("'pending'").doesNotContain("returning");
        assertThat(placeholders(one)).isEqualTo(15);
        assertThat(insert.sql(EventInsert.ROWS_PER_STATEMENT)).isSameAs(insert.sql(EventInsert.ROWS_PER_STATEMENT));
        assertThat(insert.sql(300)).isEqualTo(insert.rendered(300));
        assertThat(placeholders(insert.sql(300))).isEqualTo(300 * 15);
        assertThat(insert.sql(EventInsert.ROWS_PER_STATEMENT))
                .isEqualTo(insert.rendered(EventInsert.ROWS_PER_STATEMENT));
    }

    @Test
    @DisplayName("the append-only log's INSERT looks ids up only in its text for given ids")
    void logInsert() {
        EventInsert insert = new EventInsert(table, Identifiers.tableName("t", "billing.outbox_events_id_taken"));
        assertThat(insert.sql(2)).doesNotContain("exists").doesNotContain("id_taken");
        assertThat(placeholders(insert.sql(2))).isEqualTo(2 * 14);
        assertThat(insert.lookingUpSql(2)).contains("exists").contains("\"outbox_events_id_taken\"");
        assertThat(placeholders(insert.lookingUpSql(2))).isEqualTo(2 * 14);
        assertThat(insert.lookingUpSql(300)).isEqualTo(insert.rendered(300, true));
    }

    private static long placeholders(String sql) {
        return sql.chars().filter(c -> c == '?').count();
    }
}
