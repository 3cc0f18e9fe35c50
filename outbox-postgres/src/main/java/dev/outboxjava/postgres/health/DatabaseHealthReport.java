package dev.outboxjava.postgres.health;

import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * One reading of the database signals that explain a slow or stuck outbox.
 *
 * @param takenAt              the instant the probe was asked for (from the caller's clock)
 * @param outbox               statistics of the outbox as a whole; empty when its table does not exist. In
 *                             place, those of the outbox table; in the append-only layout, every table of
 *                             {@code outboxTables} combined (counts and sizes summed, the vacuum times of
 *                             the table with the most dead rows, see {@link TableStatistics})
 * @param oldestTransaction    the open transaction holding the xmin horizon back furthest; empty when none
 * @param inbox                statistics of the inbox table; empty when none is configured or it does not exist
 * @param preparedTransactions the database's prepared transactions, oldest first
 * @param replicationSlots     the replication slots holding {@code xmin} or {@code catalog_xmin}, oldest first
 *                             (physical slots and the logical slots of this database)
 * @param outboxTables         statistics of each table the layout keeps the outbox in, each over its
 *                             partitions: in place the outbox table alone; in the append-only layout the
 *                             log {@code <t>} (its range partitions), then {@code <t>_state},
 *                             {@code <t>_lease}, {@code <t>_position}, {@code <t>_sent} and
 *                             {@code <t>_floor}; tables that do not exist are left out
 */
public record DatabaseHealthReport(
        Instant takenAt,
        Optional<TableStatistics> outbox,
        Optional<OpenTransaction> oldestTransaction,
        Optional<TableStatistics> inbox,
        List<PreparedTransaction> preparedTransactions,
        List<ReplicationSlotHold> replicationSlots,
        List<TableStatistics> outboxTables) {

    public DatabaseHealthReport {
        Objects.requireNonNull(takenAt, "takenAt");
        Objects.requireNonNull(outbox, "outbox");
        Objects.requireNonNull(oldestTransaction, "oldestTransaction");
        Objects.requireNonNull(inbox, "inbox");
        preparedTransactions = List.copyOf(preparedTransactions);
        replicationSlots = List.copyOf(replicationSlots);
        outboxTables = List.copyOf(outboxTables);
    }

    /** A reading of an outbox kept in one table (the in-place layout): {@code outboxTables} is {@code outbox}. */
    public DatabaseHealthReport(
            Instant takenAt,
            Optional<TableStatistics> outbox,
            Optional<OpenTransaction> oldestTransaction,
            Optional<TableStatistics> inbox,
            List<PreparedTransaction> preparedTransactions,
            List<ReplicationSlotHold> replicationSlots) {
        this(
                takenAt,
                outbox,
                oldestTransaction,
                inbox,
                preparedTransactions,
                replicationSlots,
                outbox.stream().toList());
    }

    /** A reading of an outbox kept in one table, without prepared transactions and replication slots. */
    public DatabaseHealthReport(
            Instant takenAt,
            Optional<TableStatistics> outbox,
            Optional<OpenTransaction> oldestTransaction,
            Optional<TableStatistics> inbox) {
        this(takenAt, outbox, oldestTransaction, inbox, List.of(), List.of());
    }

    /** The statistics of the outbox's table named {@code table} (as {@link TableStatistics#table()}); empty when none. */
    public Optional<TableStatistics> outboxTable(String table) {
        return outboxTables.stream().filter(t -> t.table().equals(table)).findFirst();
    }

    /**
     * What holds the outbox table's xmin horizon back furthest: the open transaction, prepared
     * transaction or replication slot (by its {@code xmin}; a {@code catalog_xmin} holds back the
     * system catalogs only) whose horizon is the most transaction ids old; empty when none holds it.
     */
    public Optional<HorizonHolder> xminHorizon() {
        Stream<HorizonHolder> sessions =
                oldestTransaction.stream().map(t -> new HorizonHolder(t.xidAge(), "open transaction: " + t.describe()));
        Stream<HorizonHolder> prepared =
                preparedTransactions.stream().map(p -> new HorizonHolder(p.xidAge(), p.describe()));
        Stream<HorizonHolder> slots = replicationSlots.stream()
                .filter(ReplicationSlotHold::holdsTables)
                .map(s -> new HorizonHolder(s.xminAge().getAsLong(), s.describe()));
        return Stream.of(sessions, prepared, slots)
                .flatMap(s -> s)
                .max(Comparator.comparingLong(HorizonHolder::xidAge));
    }

    /**
     * The xmin horizon's age and what holds it there.
     *
     * @param xidAge  transaction ids between the horizon and the database's next transaction id
     * @param culprit one line naming the holder: the session (pid, application, client, state,
     *                times), the prepared transaction (gid, owner) or the replication slot (name, type)
     */
    public record HorizonHolder(long xidAge, String culprit) {

        public HorizonHolder {
            Objects.requireNonNull(culprit, "culprit");
        }

        /** One line, e.g. {@code 81234 transaction ids old, held by open transaction: pid 4711 (...)}. */
        public String describe() {
            return xidAge + " transaction ids old, held by " + culprit;
        }
    }
}
