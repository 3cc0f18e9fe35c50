package dev.outboxjava.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.outboxjava.benchmarks.internal.Brokers;
import dev.outboxjava.benchmarks.internal.BusinessWork;
import dev.outboxjava.benchmarks.internal.LatencyConsumer;
import dev.outboxjava.benchmarks.internal.MinuteStats;
import dev.outboxjava.benchmarks.internal.OutboxTables;
import dev.outboxjava.benchmarks.internal.ProducerLoad;
import dev.outboxjava.benchmarks.internal.Services;
import dev.outboxjava.benchmarks.internal.WorkerRun;
import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.core.port.ForwardingOutboxStore;
import dev.outboxjava.core.port.OutboxStore;
import dev.outboxjava.postgres.OutboxNotificationListener;
import dev.outboxjava.postgres.OutboxNotifier;
import dev.outboxjava.postgres.OutboxWriter;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.postgres.StoreLayout;
import dev.outboxjava.postgres.WakeUpMode;
import dev.outboxjava.postgres.health.DatabaseHealthReport;
import dev.outboxjava.postgres.health.PostgresHealthProbe;
import dev.outboxjava.worker.OutboxWorker;
import dev.outboxjava.worker.WakeUpSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;

/**
 * Scenario 7, a long transaction: the relay with the library's default threads and batch (unless
 * {@code --held-relay-threads} or {@code --held-batch-size}) at a steady rate into Kafka (as scenario 4,
 * the wake-up by NOTIFY after commit), twice per store layout, completion mode and ordering — once while another session holds
 * a REPEATABLE READ snapshot open, idle in transaction after its first SELECT (a report, a
 * {@code pg_dump}, a forgotten session: vacuum can then remove nothing), and once without. Per
 * interval (a minute by default) it reports commit → consume p50/p99, whether the relay kept up
 * (the backlog at the interval's end), the outbox table's dead tuples, the pending index's entries
 * read per scan and the lease statement's time ({@link MinuteStats}). Each combination runs on a
 * new table; the held run and the other take turns going first.
 */
public final class LongTransactionScenario {

    /** The figures of one run. */
    public record Run(
            List<MinuteStats.Minute> minutes,
            double p50Millis,
            double p99Millis,
            long committed,
            long deliveredDuringRun,
            long censored,
            double achievedRate,
            long heldXidAge,
            String horizonAtEnd) {

        /** The share of the committed events that reached the consumer before the producers stopped. */
        public double deliveredShare() {
            return committed == 0 ? Double.NaN : (double) deliveredDuringRun / committed;
        }

        /** The first interval at whose end the relay had fallen behind; -1 when it kept up in every one. */
        public int firstBehind() {
            return minutes.stream()
                    .filter(m -> !m.keptUp())
                    .mapToInt(MinuteStats.Minute::index)
                    .findFirst()
                    .orElse(-1);
        }
    }

    /** One store layout, completion mode and ordering, without and with the held snapshot. */
    public record Comparison(
            StoreLayout layout, CompletionMode completion, Ordering.Mode ordering, Run notHeld, Run held) {

        /** E.g. {@code in place, keep sent, ordering none}. */
        public String label() {
            return layoutName(layout) + ", " + setting();
        }

        /** The completion mode and ordering without the layout, e.g. {@code keep sent, ordering none}. */
        public String setting() {
            return (completion == CompletionMode.KEEP_SENT ? "keep sent" : "delete on publish") + ", ordering "
                    + (ordering == Ordering.Mode.PER_KEY ? "per_key" : "none");
        }

        /** {@code in place} or {@code append log}. */
        public static String layoutName(StoreLayout layout) {
            return layout == StoreLayout.APPEND_LOG ? "append log" : "in place";
        }
    }

    private static final Duration DELIVERY_LIMIT = Duration.ofSeconds(60);
    private static final Duration WARM_UP = Duration.ofSeconds(30);

    private final Services services;
    private final OutboxTables tables;
    private final Brokers brokers;
    private final BenchmarkConfig options;

    public LongTransactionScenario(Services services, OutboxTables tables, Brokers brokers, BenchmarkConfig options) {
        this.services = services;
        this.tables = tables;
        this.brokers = brokers;
        this.options = options;
    }

    /**
     * Every chosen completion mode and ordering, each without and with the held snapshot, after one
     * unmeasured run (the JIT compiler and the broker's first topics would land in the first run's
     * first minute otherwise).
     */
    public List<Comparison> run() {
        warnIfAutovacuumIsOff();
        Duration warmUp = options.heldInterval().compareTo(WARM_UP) < 0 ? options.heldInterval() : WARM_UP;
        Log.line("S7 warm-up: %d s without a held snapshot, not measured", warmUp.toSeconds());
        run(
                options.heldLayouts().get(0),
                options.heldCompletions().get(0),
                options.heldOrderings().get(0),
                false,
                warmUp,
                "warm-up");
        List<Comparison> comparisons = new ArrayList<>();
        int turn = 0;
        for (CompletionMode completion : options.heldCompletions()) {
            for (Ordering.Mode ordering : options.heldOrderings()) {
                // the layouts of one setting run one after the other, so that their ratios meet the same machine
                for (StoreLayout layout : options.heldLayouts()) {
                    Run notHeld;
                    Run held;
                    if (turn++ % 2 == 0) {
                        notHeld = run(layout, completion, ordering, false);
                        held = run(layout, completion, ordering, true);
                    } else {
                        held = run(layout, completion, ordering, true);
                        notHeld = run(layout, completion, ordering, false);
                    }
                    comparisons.add(new Comparison(layout, completion, ordering, notHeld, held));
                }
            }
        }
        return comparisons;
    }

    private Run run(StoreLayout layout, CompletionMode completion, Ordering.Mode mode, boolean holdSnapshot) {
        String label = new Comparison(layout, completion, mode, null, null).label()
                + (holdSnapshot ? ", snapshot held" : ", no snapshot held");
        return run(layout, completion, mode, holdSnapshot, options.heldTime(), label);
    }

    private Run run(
            StoreLayout layout,
            CompletionMode completion,
            Ordering.Mode mode,
            boolean holdSnapshot,
            Duration duration,
            String label) {
        Ordering ordering =
                mode == Ordering.Mode.PER_KEY ? Ordering.perKey(Ordering.AfterDeadLetter.HOLD_KEY) : Ordering.none();
        String topic = services.newTopic("longtx", 6);
        int producers = SteadyStateScenario.pacedProducers(options);
        Duration interval = options.heldInterval().compareTo(duration) > 0 ? duration : options.heldInterval();
        int intervals = MinuteStats.intervals(duration, interval);
        try (HikariDataSource pool = services.newPool("longtx", producers + options.heldThreads() + 4)) {
            PostgresOutboxStore store = tables.create("longtx", completion, WakeUpMode.NONE, ordering, layout, pool);
            String table = store.config().tableName();
            BusinessWork business = BusinessWork.create(services);
            OutboxWriter writer = store.writer();
            OutboxNotifier notifier =
                    OutboxNotifier.builder(pool, store.config().notifyChannel()).start();
            List<WakeUpSource> sources = List.of(signal -> OutboxNotificationListener.builder(
                            pool, store.config().notifyChannel(), signal::signal)
                    .start());
            Map<UUID, Long> committedAt = new ConcurrentHashMap<>();
            AtomicLong committed = new AtomicLong();
            WorkerRun.PublishedCounter published = new WorkerRun.PublishedCounter();
            AtomicReference<MinuteStats> measuring = new AtomicReference<>();
            OutboxWorker worker = WorkerRun.worker(
                    timedLeases(store, measuring),
                    brokers.newPublisher(Brokers.Kind.KAFKA),
                    options.heldThreads(),
                    options.heldBatchSize(ordering),
                    ordering,
                    Duration.ofSeconds(1),
                    published,
                    sources);
            try (LatencyConsumer consumer = new LatencyConsumer(services.kafkaBootstrapServers(), topic, 6);
                    HeldSnapshot holder = holdSnapshot ? HeldSnapshot.open(services) : null) {
                MinuteStats.Sample baseline = sample(pool, layout, table, 0);
                worker.start();
                // the intervals start with the producers: the set-up above is no part of the first
                MinuteStats stats = new MinuteStats(System.nanoTime(), interval.toNanos());
                stats.baseline(baseline);
                measuring.set(stats);
                Thread sampler = stats.sampleEachInterval(
                        intervals,
                        () -> sample(pool, layout, table, committed.get() - published.published()),
                        "bench-longtx-sampler");
                double achieved = ProducerLoad.paced(
                        pool,
                        producers,
                        duration,
                        options.steadyRate(),
                        connection -> {
                            business.insertOrder(connection);
                            OutboxEvent event = BusinessWork.event(topic);
                            writer.append(connection, List.of(event));
                            return event.id();
                        },
                        (id, at) -> {
                            committedAt.put((UUID) id, at);
                            committed.incrementAndGet();
                            notifier.signal();
                        });
                sampler.join();
                long productionEnd = System.nanoTime();
                String horizon = horizon(table, layout);
                long heldXidAge = 0;
                if (holder != null) {
                    heldXidAge = holder.xminAge();
                    holder.close();
                }
                long deadline = System.nanoTime() + DELIVERY_LIMIT.toNanos();
                while (consumer.received().size() < committedAt.size() && System.nanoTime() < deadline) {
                    Thread.sleep(50);
                }
                long gaveUp = System.nanoTime();
                Map<UUID, Long> received = consumer.received();
                long inTime = 0;
                for (Map.Entry<UUID, Long> entry : committedAt.entrySet()) {
                    Long at = received.get(entry.getKey());
                    if (at == null) {
                        stats.undelivered(entry.getValue(), gaveUp);
                    } else {
                        stats.delivered(entry.getValue(), at);
                        if (at <= productionEnd) {
                            inTime++;
                        }
                    }
                }
                double[] whole = stats.wholeRunMillis();
                Run run = new Run(
                        stats.minutes(options.steadyRate()),
                        whole[0],
                        whole[1],
                        committedAt.size(),
                        inTime,
                        stats.deliveredAndCensored()[1],
                        achieved,
                        heldXidAge,
                        horizon);
                log(label, run);
                return run;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            } finally {
                notifier.close();
                worker.close();
                tables.truncate(store);
            }
        }
    }

    private static void log(String label, Run run) {
        for (MinuteStats.Minute m : run.minutes()) {
            Log.line("S7 %s, interval %d: %s", label, m.index() + 1, BenchmarkMain.minute(m));
        }
        Log.line(
                "S7 %s: p50 %.1f ms, p99 %.1f ms over the run; %,d committed (%,.0f/s), %,d delivered before the "
                        + "producers stopped, %,d not delivered at the end%s; xmin horizon at the end: %s",
                label,
                run.p50Millis(),
                run.p99Millis(),
                run.committed(),
                run.achievedRate(),
                run.deliveredDuringRun(),
                run.censored(),
                run.heldXidAge() == 0
                        ? ""
                        : String.format(
                                Locale.ROOT,
                                "; the held snapshot was %,d transaction ids old at the end",
                                run.heldXidAge()),
                run.horizonAtEnd());
    }

    /**
     * What held the database's xmin horizon when the producers stopped, as the library's health probe
     * names it: without a held snapshot of its own the run may still have met another session's
     * (a shared machine), which this shows.
     */
    private String horizon(String table, StoreLayout layout) {
        try {
            return PostgresHealthProbe.create(services.dataSource(), table, layout, Optional.empty())
                    .read(Instant.now())
                    .xminHorizon()
                    .map(DatabaseHealthReport.HorizonHolder::describe)
                    .orElse("not held");
        } catch (RuntimeException e) {
            return "unknown (" + e.getMessage() + ")";
        }
    }

    /** The store with the wall time of every lease recorded in the statistics being measured, once set. */
    private static OutboxStore timedLeases(OutboxStore store, AtomicReference<MinuteStats> measuring) {
        return new ForwardingOutboxStore(store) {
            @Override
            public List<OutboxEvent> lease(UUID leaseId, int limit, Instant now) {
                long start = System.nanoTime();
                try {
                    return super.lease(leaseId, limit, now);
                } finally {
                    MinuteStats stats = measuring.get();
                    if (stats != null) {
                        stats.lease(start, System.nanoTime() - start);
                    }
                }
            }
        };
    }

    /**
     * The runs without a held snapshot stand for a database whose vacuum keeps up; with autovacuum off they
     * would pile up dead rows as the held snapshot does, and the ratio would compare two degraded runs.
     */
    private void warnIfAutovacuumIsOff() {
        try (Connection connection = services.dataSource().getConnection();
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery("SHOW autovacuum")) {
            rs.next();
            if (!"on".equals(rs.getString(1))) {
                Log.line("S7 WARNING: autovacuum is off on this server, so the runs without a held snapshot do not"
                        + " show a vacuumed database and the ratios mean little. Turn it on for the benchmark:"
                        + " ALTER SYSTEM SET autovacuum = on; SELECT pg_reload_conf();");
            }
        } catch (SQLException e) {
            Log.line("S7 could not read the autovacuum setting: %s", e.getMessage());
        }
    }

    /**
     * The statistics counters of the outbox table and the index its lease starts from, and the backlog
     * counted by the benchmark (committed less marked published): counting the table would scan the
     * index and add to the very counters measured. In place that is the table and its pending index;
     * the append-only log's dead tuples are those of the log and its state table (where its status
     * changes land), its index the log's position index.
     */
    static MinuteStats.Sample sample(HikariDataSource pool, StoreLayout layout, String table, long backlog) {
        String sql = """
                SELECT coalesce((SELECT sum(n_dead_tup) FROM pg_stat_user_tables WHERE relid IN (%1$s)), 0)
                       + coalesce((SELECT sum(n_dead_tup) FROM pg_stat_user_tables WHERE relid IN (%1$s)), 0)
                       + coalesce((SELECT sum(n_dead_tup) FROM pg_stat_user_tables WHERE relid IN (%1$s)), 0),
                       coalesce((SELECT sum(idx_tup_read) FROM pg_stat_user_indexes WHERE indexrelid IN (%1$s)), 0),
                       coalesce((SELECT sum(idx_scan) FROM pg_stat_user_indexes WHERE indexrelid IN (%1$s)), 0)"""
                // the append-only log, state and lease tables are partitioned: their counters are those of their
                // partitions; pg_partition_tree lists nothing for a plain table (the in-place one), hence the union
                .formatted("SELECT x FROM (SELECT to_regclass(?) AS r) s,"
                        + " LATERAL (SELECT relid FROM pg_partition_tree(s.r) UNION SELECT s.r) t(x)");
        boolean log = layout == StoreLayout.APPEND_LOG;
        String index = table + (log ? "_log_idx" : "_pending_idx");
        try (Connection connection = pool.getConnection();
                PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setString(1, table);
            statement.setString(2, log ? table + "_state" : null);
            statement.setString(3, log ? table + "_lease" : null);
            statement.setString(4, index);
            statement.setString(5, index);
            try (ResultSet rs = statement.executeQuery()) {
                rs.next();
                return new MinuteStats.Sample(backlog, rs.getLong(1), rs.getLong(2), rs.getLong(3));
            }
        } catch (SQLException e) {
            Log.line("S7 statistics sample failed: %s", e.getMessage());
            return new MinuteStats.Sample(backlog, 0, 0, 0);
        }
    }

    /**
     * Another session idle in a REPEATABLE READ transaction after its first SELECT: its snapshot's
     * xmin holds the horizon until it is closed. Its {@code application_name} ends in {@code held-snapshot}.
     */
    static final class HeldSnapshot implements AutoCloseable {
        private static final String XMIN_AGE = "SELECT age(backend_xmin) FROM pg_stat_activity WHERE pid = ?";
        private final HikariDataSource pool;
        private final Connection connection;
        private final int pid;
        private final DataSource observer;

        private HeldSnapshot(HikariDataSource pool, Connection connection, int pid, DataSource observer) {
            this.pool = pool;
            this.connection = connection;
            this.pid = pid;
            this.observer = observer;
        }

        static HeldSnapshot open(Services services) {
            HikariDataSource pool = services.newPool("held-snapshot", 1);
            try {
                Connection connection = pool.getConnection();
                connection.setAutoCommit(false);
                connection.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
                // the first SELECT takes the transaction's snapshot; the session then idles in the transaction
                try (Statement statement = connection.createStatement();
                        ResultSet rs = statement.executeQuery("SELECT pg_backend_pid(), backend_xmin IS NOT NULL "
                                + "FROM pg_stat_activity WHERE pid = pg_backend_pid()")) {
                    rs.next();
                    if (!rs.getBoolean(2)) {
                        throw new IllegalStateException("the held session has no snapshot xmin");
                    }
                    return new HeldSnapshot(pool, connection, rs.getInt(1), services.dataSource());
                }
            } catch (SQLException e) {
                pool.close();
                throw new IllegalStateException("could not hold a snapshot open: " + e.getMessage(), e);
            }
        }

        /** Transaction ids since the held snapshot's xmin, asked from another session. */
        long xminAge() {
            try (Connection other = observer.getConnection();
                    PreparedStatement statement = other.prepareStatement(XMIN_AGE)) {
                statement.setInt(1, pid);
                try (ResultSet rs = statement.executeQuery()) {
                    return rs.next() ? rs.getLong(1) : 0;
                }
            } catch (SQLException e) {
                Log.line("S7 reading the held snapshot's age failed: %s", e.getMessage());
                return 0;
            }
        }

        @Override
        public void close() {
            if (pool.isClosed()) {
                return;
            }
            try {
                connection.rollback();
                connection.close();
            } catch (SQLException e) {
                Log.line("S7 closing the held snapshot failed: %s", e.getMessage());
            } finally {
                pool.close();
            }
        }
    }
}
