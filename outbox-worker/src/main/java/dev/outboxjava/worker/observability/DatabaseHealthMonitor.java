package dev.outboxjava.worker.observability;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.port.Backlog;
import dev.outboxjava.core.port.OutboxStore;
import dev.outboxjava.postgres.health.DatabaseHealthReport;
import dev.outboxjava.postgres.health.OpenTransaction;
import dev.outboxjava.postgres.health.PostgresHealthProbe;
import dev.outboxjava.postgres.health.PreparedTransaction;
import dev.outboxjava.postgres.health.ReplicationSlotHold;
import dev.outboxjava.postgres.health.TableStatistics;
import dev.outboxjava.worker.HealthConfig;
import dev.outboxjava.worker.ReadinessCheck;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The database health signals as gauges and as a {@link ReadinessCheck}: rows by status
 * ({@code outbox.events.rows}, tag {@code status}), the outbox's dead and live tuples, size and time
 * since its last (auto)vacuum ({@code outbox.table.*}: the outbox as a whole; {@code outbox.relation.*},
 * tag {@code relation}: each table the layout keeps it in, see {@link PostgresHealthProbe#outboxTables()}),
 * the oldest open transaction of the database (age in seconds and in transaction ids), the xmin
 * horizon's age whatever holds it, and the inbox table's rows and size.
 * Each poll logs a warning naming what holds the horizon past {@code outbox.health.max.xmin.age}: the
 * session (pid, application, client), a prepared transaction, or an inactive replication slot.
 *
 * <p>Gauges show the last poll (one poll per interval, on its own daemon thread once
 * {@link #start() started}; never a query per scrape). {@link #check()} reads fresh figures and
 * judges them by the {@link HealthConfig} thresholds. A gauge whose figure is unknown (a table that
 * does not exist, a vacuum that never ran, no open transaction) reads NaN, or 0 for the transaction age.
 */
public final class DatabaseHealthMonitor implements ReadinessCheck {

    private static final Logger log = LoggerFactory.getLogger(DatabaseHealthMonitor.class);

    private final OutboxStore store;
    private final PostgresHealthProbe probe;
    private final HealthConfig thresholds;
    private final Clock clock;
    private final Duration pollInterval;
    private final AtomicReference<Optional<Snapshot>> last = new AtomicReference<>(Optional.empty());

    /** What one poll read; {@code backlogAt} is when the backlog in {@code signals} was read. */
    private record Snapshot(Map<EventStatus, Long> counts, DatabaseSignals signals, Instant backlogAt) {}

    /**
     * Registers the gauges in {@code registry}; polls only once {@link #start() started} (or on {@link #poll()}).
     *
     * @param pollInterval how often the gauges are refreshed
     */
    public DatabaseHealthMonitor(
            OutboxStore store,
            PostgresHealthProbe probe,
            HealthConfig thresholds,
            Clock clock,
            MeterRegistry registry,
            Duration pollInterval) {
        this.store = Objects.requireNonNull(store, "store");
        this.probe = Objects.requireNonNull(probe, "probe");
        this.thresholds = Objects.requireNonNull(thresholds, "thresholds");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.pollInterval = Objects.requireNonNull(pollInterval, "pollInterval");
        for (EventStatus status : EventStatus.values()) {
            Gauge.builder("outbox.events.rows", this, monitor -> monitor.count(status))
                    .tag("status", status.databaseValue())
                    .description("Rows of the outbox table by status (last poll)")
                    .register(registry);
        }
        gauge(
                registry,
                "outbox.table.dead_tuples",
                null,
                "Dead rows of the outbox's tables not yet vacuumed (append-only layout: all its tables summed)",
                s -> outbox(s).map(t -> (double) t.deadTuples()));
        gauge(
                registry,
                "outbox.table.live_tuples",
                null,
                "Live rows of the outbox's tables (statistics estimate; append-only layout: all its tables summed)",
                s -> outbox(s).map(t -> (double) t.liveTuples()));
        gauge(
                registry,
                "outbox.table.size",
                "bytes",
                "Size on disk of the outbox's tables, indexes included (append-only layout: all its tables summed)",
                s -> outbox(s).map(t -> (double) t.totalBytes()));
        gauge(
                registry,
                "outbox.table.last_autovacuum_age",
                "seconds",
                "Time since autovacuum last finished on the outbox table (append-only layout: on the one with "
                        + "the most dead rows); NaN when never",
                s -> outbox(s).flatMap(TableStatistics::lastAutovacuum).map(at -> age(at, s)));
        gauge(
                registry,
                "outbox.table.last_vacuum_age",
                "seconds",
                "Time since any vacuum (auto or manual) last finished on the outbox table (append-only layout: on "
                        + "the one with the most dead rows); NaN when never",
                s -> outbox(s).flatMap(TableStatistics::lastVacuumOfAnyKind).map(at -> age(at, s)));
        for (String relation : probe.outboxTables()) {
            relationGauges(registry, relation);
        }
        gauge(
                registry,
                "outbox.db.oldest_transaction_age",
                "seconds",
                "How long the database's oldest open transaction holding back the xmin horizon has been open; 0 when none",
                s -> Optional.of(s.signals()
                        .report()
                        .oldestTransaction()
                        .map(t -> t.age().toMillis() / 1000.0)
                        .orElse(0.0)));
        gauge(
                registry,
                "outbox.db.oldest_transaction_xid_age",
                null,
                "Transaction ids since the oldest open transaction's xid or snapshot xmin; 0 when none",
                s -> Optional.of(s.signals()
                        .report()
                        .oldestTransaction()
                        .map(t -> (double) t.xidAge())
                        .orElse(0.0)));
        gauge(
                registry,
                "outbox.db.xmin_horizon_xid_age",
                null,
                "Transaction ids since the xmin horizon of the outbox table, whatever holds it (an open or prepared "
                        + "transaction, a replication slot); 0 when nothing holds it",
                s -> Optional.of(s.signals()
                        .report()
                        .xminHorizon()
                        .map(h -> (double) h.xidAge())
                        .orElse(0.0)));
        gauge(
                registry,
                "outbox.inbox.rows",
                null,
                "Rows of the inbox table (statistics estimate); NaN when none",
                s -> s.signals().report().inbox().map(t -> (double) t.liveTuples()));
        gauge(
                registry,
                "outbox.inbox.size",
                "bytes",
                "Inbox table size on disk, indexes included; NaN when none",
                s -> s.signals().report().inbox().map(t -> (double) t.totalBytes()));
    }

    /* One series per table of the layout, so that an alert names the table whose dead rows pile up. */
    private void relationGauges(MeterRegistry registry, String relation) {
        Function<Snapshot, Optional<TableStatistics>> table =
                s -> s.signals().report().outboxTable(relation);
        gauge(
                registry,
                "outbox.relation.dead_tuples",
                relation,
                null,
                "Dead rows not yet vacuumed of one table of the outbox, over its partitions; NaN when it does not exist",
                s -> table.apply(s).map(t -> (double) t.deadTuples()));
        gauge(
                registry,
                "outbox.relation.live_tuples",
                relation,
                null,
                "Live rows of one table of the outbox, over its partitions (statistics estimate); NaN when it does "
                        + "not exist",
                s -> table.apply(s).map(t -> (double) t.liveTuples()));
        gauge(
                registry,
                "outbox.relation.size",
                relation,
                "bytes",
                "Size on disk of one table of the outbox, its partitions and indexes included; NaN when it does not "
                        + "exist",
                s -> table.apply(s).map(t -> (double) t.totalBytes()));
        gauge(
                registry,
                "outbox.relation.last_autovacuum_age",
                relation,
                "seconds",
                "Time since autovacuum last finished on one table of the outbox (on its partition with the most dead "
                        + "rows); NaN when never",
                s -> table.apply(s).flatMap(TableStatistics::lastAutovacuum).map(at -> age(at, s)));
        gauge(
                registry,
                "outbox.relation.last_vacuum_age",
                relation,
                "seconds",
                "Time since any vacuum (auto or manual) last finished on one table of the outbox (on its partition "
                        + "with the most dead rows); NaN when never",
                s -> table.apply(s)
                        .flatMap(TableStatistics::lastVacuumOfAnyKind)
                        .map(at -> age(at, s)));
    }

    private void gauge(
            MeterRegistry registry,
            String name,
            String unit,
            String description,
            Function<Snapshot, Optional<Double>> read) {
        gauge(registry, name, null, unit, description, read);
    }

    private void gauge(
            MeterRegistry registry,
            String name,
            String relation,
            String unit,
            String description,
            Function<Snapshot, Optional<Double>> read) {
        ToDoubleFunction<DatabaseHealthMonitor> value =
                monitor -> monitor.last.get().flatMap(read).orElse(Double.NaN);
        Gauge.Builder<DatabaseHealthMonitor> builder =
                Gauge.builder(name, this, value).description(description);
        if (unit != null) {
            builder.baseUnit(unit);
        }
        if (relation != null) {
            builder.tag("relation", relation);
        }
        builder.register(registry);
    }

    private static Optional<TableStatistics> outbox(Snapshot snapshot) {
        return snapshot.signals().report().outbox();
    }

    private static double age(Instant at, Snapshot snapshot) {
        return Math.max(
                        0,
                        Duration.between(at, snapshot.signals().report().takenAt())
                                .toMillis())
                / 1000.0;
    }

    private double count(EventStatus status) {
        return last.get()
                .filter(s -> !s.counts().isEmpty())
                .map(s -> (double) s.counts().getOrDefault(status, 0L))
                .orElse(Double.NaN);
    }

    /**
     * Reads every signal now and updates the gauges.
     *
     * @throws dev.outboxjava.core.OutboxStoreException when the database cannot be asked
     */
    public DatabaseSignals poll() {
        Map<EventStatus, Long> counts = new EnumMap<>(EventStatus.class);
        counts.putAll(store.countByStatus());
        Instant now = clock.instant();
        Backlog backlog = store.backlog(now);
        DatabaseSignals signals = new DatabaseSignals(backlog, probe.read(now));
        last.set(Optional.of(new Snapshot(counts, signals, now)));
        return signals;
    }

    /**
     * The signals judged by the thresholds; DOWN when the database cannot be asked. Only eligible events
     * count as lag: events waiting for a retry, scheduled for later or held back by their key never make it
     * DOWN. The statistics are read fresh; the backlog is the last poll's while that is at most two poll
     * intervals old (it reads every pending row, and a probe must stay fast however large the backlog
     * grows), else it is read fresh too.
     */
    @Override
    public HealthCheck check() {
        try {
            Instant now = clock.instant();
            Optional<Snapshot> previous = last.get();
            Optional<Snapshot> recent = previous.filter(snapshot ->
                    !snapshot.backlogAt().plus(pollInterval.multipliedBy(2)).isBefore(now));
            Backlog backlog =
                    recent.map(snapshot -> snapshot.signals().backlog()).orElseGet(() -> store.backlog(now));
            Instant backlogAt = recent.map(Snapshot::backlogAt).orElse(now);
            DatabaseSignals signals = new DatabaseSignals(backlog, probe.read(now));
            last.set(Optional.of(new Snapshot(previous.map(Snapshot::counts).orElse(Map.of()), signals, backlogAt)));
            return signals.evaluate(thresholds);
        } catch (RuntimeException e) {
            return HealthCheck.down("database signals unavailable: " + e.getMessage());
        }
    }

    /** Polls at once, then every poll interval, on a daemon thread; closing what it returns stops it. */
    @Override
    public AutoCloseable start() {
        ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "outbox-db-health");
            thread.setDaemon(true);
            return thread;
        });
        executor.scheduleWithFixedDelay(this::pollQuietly, 0, pollInterval.toMillis(), TimeUnit.MILLISECONDS);
        return executor::shutdownNow;
    }

    private boolean over(Optional<Duration> age) {
        return !thresholds.maxXminAge().isZero() && age.isPresent() && age.get().compareTo(thresholds.maxXminAge()) > 0;
    }

    private void pollQuietly() {
        try {
            DatabaseSignals signals = poll();
            DatabaseHealthReport report = signals.report();
            Optional<OpenTransaction> oldest = report.oldestTransaction();
            if (over(oldest.map(OpenTransaction::age))) {
                log.warn(
                        "a transaction holds back the xmin horizon (outbox vacuum and per-key publishing wait for "
                                + "it): {}",
                        oldest.get().describe());
            }
            for (PreparedTransaction prepared : report.preparedTransactions()) {
                if (over(Optional.of(prepared.age()))) {
                    log.warn(
                            "a prepared transaction holds back the xmin horizon (outbox vacuum waits for it; end it "
                                    + "with COMMIT PREPARED or ROLLBACK PREPARED): {}",
                            prepared.describe());
                }
            }
            for (ReplicationSlotHold slot : report.replicationSlots()) {
                if (slot.holdsTables() && !slot.active()) {
                    log.warn(
                            "an inactive replication slot holds back the xmin horizon (outbox vacuum waits for it "
                                    + "until the slot is consumed or dropped): {}",
                            slot.describe());
                }
            }
        } catch (RuntimeException e) {
            // the loops report database outages; the gauges keep their last figures
            log.debug("database health poll failed: {}", e.toString());
        }
    }
}
