package dev.outboxjava.worker.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.OutboxStoreException;
import dev.outboxjava.core.time.ManualClock;
import java.sql.SQLException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("A failed tick's failure")
class FailuresTest {

    private final ManualClock clock = ManualClock.startingAtEpochOf2024();
    private final OutageTracker database = new OutageTracker("database", false, clock);
    private final OutageTracker bug = new OutageTracker("relay", true, clock);
    private final LogCapture log = new LogCapture("dev.outboxjava.worker.outage");

    @AfterEach
    void detach() {
        log.close();
    }

    private static Throwable refused(String message, String sqlState) {
        return new OutboxStoreException("could not lease up to 100 events", new SQLException(message, sqlState));
    }

    @Test
    @DisplayName("is a missing outbox table when the table does not exist (42P01)")
    void missingRelation() {
        assertThat(Failures.report(
                        "relay",
                        refused("ERROR: relation \"outbox_events\" does not exist", "42P01"),
                        database,
                        bug,
                        database.outagesEnded()))
                .isTrue();
        assertThat(database.isTableMissing()).isTrue();
    }

    @Test
    @DisplayName("is a missing outbox table when its schema does not exist (3F000): dropped with its tables")
    void missingSchema() {
        assertThat(Failures.report(
                        "relay",
                        refused("ERROR: schema \"tenant_7\" does not exist", "3F000"),
                        database,
                        bug,
                        database.outagesEnded()))
                .isTrue();
        assertThat(database.isTableMissing()).isTrue();
        assertThat(log.atLeast(ch.qos.logback.classic.Level.WARN))
                .singleElement()
                .satisfies(line -> assertThat(line).startsWith("outbox table missing"));
    }

    @Test
    @DisplayName("is a database outage, not a missing table, when the connection failed")
    void connectionFailed() {
        assertThat(Failures.report(
                        "relay", refused("Connection refused", "08001"), database, bug, database.outagesEnded()))
                .isTrue();
        assertThat(database.isTableMissing()).isFalse();
        assertThat(database.isDown()).isTrue();
    }
}
