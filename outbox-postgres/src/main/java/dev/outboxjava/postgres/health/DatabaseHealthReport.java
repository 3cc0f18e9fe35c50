package dev.outboxjava.postgres.health;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * One reading of the database signals that explain a slow or stuck outbox.
 *
 * @param takenAt          the instant the probe was asked for (from the caller's clock)
 * @param outbox           statistics of the outbox table; empty when the table does not exist
 * @param oldestTransaction the open transaction holding the xmin horizon back furthest; empty when none
 * @param inbox            statistics of the inbox table; empty when none is configured or it does not exist
 */
public record DatabaseHealthReport(Instant takenAt, Optional<TableStatistics> outbox,
        Optional<OpenTransaction> oldestTransaction, Optional<TableStatistics> inbox) {

    public DatabaseHealthReport {
        Objects.requireNonNull(takenAt, "takenAt");
        Objects.requireNonNull(outbox, "outbox");
        Objects.requireNonNull(oldestTransaction, "oldestTransaction");
        Objects.requireNonNull(inbox, "inbox");
    }
}
