package dev.outboxjava.postgres.health;

import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What PostgreSQL's statistics say about one table ({@code pg_stat_user_tables} and
 * {@code pg_total_relation_size}). The tuple counts are the statistics system's estimates, updated
 * shortly after each transaction ends, not exact counts.
 *
 * <p>A partitioned table has no rows of its own: its figures are those of its partitions (every level
 * down), the counts and sizes summed, the vacuum times those of the partition holding the most dead
 * rows (vacuum runs partition by partition, and that one's wait is what the dead rows wait for). Several
 * tables read as one (the append-only layout's tables, see {@link DatabaseHealthReport#outbox()}) are
 * combined the same way.
 *
 * @param table          the table, e.g. {@code outbox_events} or {@code billing.outbox_events_state}
 * @param liveTuples     estimated live rows
 * @param deadTuples     estimated dead rows not yet vacuumed (in place, every status change leaves one)
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

    /**
     * Whether the dead rows are over {@code floor} and over {@code shareOfLive} of the live rows (the
     * rule of the shipped {@code OutboxDeadTuplesHigh} alert is {@code 100000} and {@code 0.2}).
     */
    public boolean deadTuplesOver(long floor, double shareOfLive) {
        return deadTuples > floor && deadTuples > shareOfLive * liveTuples;
    }

    /**
     * Several tables (or partitions) read as one, named {@code table}: counts and sizes summed, the vacuum
     * times of the part with the most dead rows (of those, the one vacuumed last); empty when there are none.
     */
    static Optional<TableStatistics> combine(String table, List<TableStatistics> parts) {
        Comparator<TableStatistics> mostDead = Comparator.comparingLong(TableStatistics::deadTuples)
                .thenComparing(part -> part.lastVacuumOfAnyKind().orElse(Instant.MIN));
        return parts.stream()
                .max(mostDead)
                .map(worst -> new TableStatistics(
                        table,
                        parts.stream().mapToLong(TableStatistics::liveTuples).sum(),
                        parts.stream().mapToLong(TableStatistics::deadTuples).sum(),
                        parts.stream().mapToLong(TableStatistics::totalBytes).sum(),
                        worst.lastAutovacuum(),
                        worst.lastVacuum()));
    }
}
