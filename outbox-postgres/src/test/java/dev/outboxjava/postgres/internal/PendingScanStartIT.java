package dev.outboxjava.postgres.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.testkit.postgres.PostgresExtension;
import java.sql.Connection;
import java.time.Instant;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The start of the append-only lease's state read: looked up at most once per interval (on a clock the
 * test moves: the lease's), lowered by rows the lease parks, looked up again after a reset.
 */
class PendingScanStartIT {

    @RegisterExtension
    static final PostgresExtension postgres = new PostgresExtension();

    private final Instant now = Instant.parse("2024-03-01T10:00:00Z");
    private String table;
    private PendingScanStart start;

    @BeforeEach
    void createTable() {
        table = postgres.schema() + ".pending_start";
        postgres.fixture()
                .execute("DROP TABLE IF EXISTS " + table + "; CREATE TABLE " + table
                        + " (seq bigint, status text, next_attempt_at timestamptz)");
        start = new PendingScanStart(
                "SELECT min(seq) FROM " + table + " WHERE status = 'pending' AND next_attempt_at <= ?");
    }

    @Test
    @DisplayName("the lowest due pending row, looked up again only once the interval has passed")
    void looksUpOncePerInterval() throws Exception {
        insert(40, "pending", now);
        insert(10, "pending", now.plusSeconds(60)); // not due: not a start
        insert(30, "pending", now.plusMillis(300)); // due before the next lookup: it may not fall below the start
        insert(5, "failed", now);
        try (Connection connection = postgres.dataSource().getConnection()) {
            assertThat(start.seq(connection, now)).isEqualTo(30);

            insert(20, "pending", now); // by another process: found at the next lookup
            Instant later = now.plus(PendingScanStart.LOOKUP_INTERVAL);
            assertThat(start.seq(connection, later.minusNanos(1))).isEqualTo(30);
            assertThat(start.seq(connection, later)).isEqualTo(20);
            // the not-due row is found once it is due, however far the time moved
            assertThat(start.seq(connection, now.plusSeconds(60))).isEqualTo(10);
        }
    }

    @Test
    @DisplayName("with no due row nothing is read until a row is parked, or the store resets the start")
    void lowersAndResets() throws Exception {
        try (Connection connection = postgres.dataSource().getConnection()) {
            assertThat(start.seq(connection, now)).isEqualTo(Long.MAX_VALUE);

            start.lowerTo(70); // parked by this process's lease
            assertThat(start.seq(connection, now)).isEqualTo(70);

            insert(30, "pending", now); // a release by this process
            start.reset();
            assertThat(start.seq(connection, now)).isEqualTo(30);
        }
    }

    private void insert(long seq, String status, Instant nextAttemptAt) {
        postgres.fixture()
                .execute("INSERT INTO " + table + " VALUES (" + seq + ", '" + status + "', timestamptz '"
                        + nextAttemptAt + "')");
    }
}
