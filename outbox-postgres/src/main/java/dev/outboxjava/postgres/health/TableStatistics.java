package dev.outboxjava.postgres.health;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * What PostgreSQL's statistics say about one table ({@code pg_stat_user_tables} and
 * {@code pg_total_relation_size}). The tuple counts are the statistics system's estimates, updated
 * shortly after each transaction ends, not exact counts.
 *
 * @param table          the table as configured, e.g. {@code outbox_events} or {@code billing.outbox_events}
 * @param liveTuples     estimated live rows
 * @param deadTuples     estimated dead rows not yet vacuumed (every status change leaves one)
 * @param totalBytes     size on disk including indexes and TOAST
 * @param lastAutovacuum when autovacuum last finished on the table; empty when never (since the statistics reset)
 * @param lastVacuum     when a manual VACUUM last finished; empty when never
 */
public record TableStatistics(
        String table,
        long liveTuples,
        long deadTuples,
        long totalBytes,
        Optional<Instant> lastAutovacuum,
        Optional<Instant> lastVacuum) {

    public TableStatistics {
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(lastAutovacuum, "lastAutovacuum");
        Objects.requireNonNull(lastVacuum, "lastVacuum");
    }

    /** The later of the last autovacuum and the last manual vacuum; empty when neither ran. */
    public Optional<Instant> lastVacuumOfAnyKind() {
        if (lastAutovacuum.isEmpty()) {
            return lastVacuum;
        }
        if (lastVacuum.isEmpty()) {
            return lastAutovacuum;
        }
        return Optional.of(lastAutovacuum.get().isAfter(lastVacuum.get()) ? lastAutovacuum.get() : lastVacuum.get());
    }
}
