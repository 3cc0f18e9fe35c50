package dev.outboxjava.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.outboxjava.benchmarks.internal.Brokers;
import dev.outboxjava.benchmarks.internal.OutboxTables;
import dev.outboxjava.benchmarks.internal.RelayProcess;
import dev.outboxjava.benchmarks.internal.Services;
import dev.outboxjava.benchmarks.internal.SqlDrainers;
import dev.outboxjava.benchmarks.internal.Stats;
import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.core.relay.RelayConfig;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.postgres.WakeUpMode;
import dev.outboxjava.worker.OutboxWorkerConfig;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Scenario 8: relays as separate processes, the way replicas of a service run them. The same backlog
 * (keys spread over 1,000 keys) is drained into Kafka, keep-sent, by 1, 2 and 4 relay JVMs with the
 * library's default threads and batch, with ordering none and per key; and by one relay JVM with other
 * threads × batch choices beside the defaults. Before each drain the database's own ceiling (the
 * store's SQL with no broker, {@link SqlDrainers}) drains the same backlog on the same table, so every
 * figure is a ratio to a ceiling measured a minute earlier on the same machine.
 */
public final class ScaleOutScenario {

    /** The relay processes and their threads × batch. */
    public record Shape(int processes, int threads, int batchSize, Ordering.Mode ordering) {

        /** E.g. {@code 2 relay processes x 1 thread x batch 500, ordering per_key}. */
        public String label() {
            return processes + " relay process" + (processes == 1 ? "" : "es") + " x " + threads + " thread"
                    + (threads == 1 ? "" : "s") + " x batch " + batchSize + ", ordering "
                    + ordering.name().toLowerCase(Locale.ROOT);
        }

        /** Whether the threads and batch are the library's defaults. */
        public boolean isLibraryDefault() {
            return threads == OutboxWorkerConfig.DEFAULT_RELAY_THREADS && batchSize == RelayConfig.DEFAULT_BATCH_SIZE;
        }
    }

    /** Medians over the runs: the relays' rate and its share of the ceiling drained just before it. */
    public record Drain(Shape shape, double rowsPerSecond, double shareOfCeiling) {}

    /** The ceiling's SQL when scenario 1 did not run: batch and drainers that were near its best here. */
    private static final int DEFAULT_CEILING_BATCH = 1000;

    private static final int DEFAULT_CEILING_DRAINERS = 2;
    private static final Duration FIRST_PUBLISH_TIMEOUT = Duration.ofSeconds(60);
    /**
     * The shortest drain window: a relay process's figure includes its producer's first requests and
     * the other processes joining, which a few seconds' window would weigh too much.
     */
    private static final Duration MIN_WINDOW = Duration.ofSeconds(20);

    private final Services services;
    private final OutboxTables tables;
    private final Brokers brokers;
    private final BenchmarkConfig options;

    public ScaleOutScenario(Services services, OutboxTables tables, Brokers brokers, BenchmarkConfig options) {
        this.services = services;
        this.tables = tables;
        this.brokers = brokers;
        this.options = options;
    }

    /** The shapes measured: the scale-out with the library's defaults, then one process with other choices. */
    static List<Shape> shapes() {
        int threads = OutboxWorkerConfig.DEFAULT_RELAY_THREADS;
        int batch = RelayConfig.DEFAULT_BATCH_SIZE;
        List<Shape> shapes = new ArrayList<>();
        for (Ordering.Mode ordering : Ordering.Mode.values()) {
            for (int processes : new int[] {1, 2, 4}) {
                shapes.add(new Shape(processes, threads, batch, ordering));
            }
        }
        for (int[] choice : new int[][] {{2, 500}, {2, 1000}, {4, 1000}}) {
            if (choice[0] != threads || choice[1] != batch) {
                shapes.add(new Shape(1, choice[0], choice[1], Ordering.Mode.NONE));
            }
        }
        return shapes;
    }

    /** @param ceiling scenario 1's result, whose best SQL configuration is the reference; null for a default one */
    public List<Drain> run(CeilingScenario.Result ceiling) {
        int ceilingBatch = ceiling != null ? ceiling.batchSize() : DEFAULT_CEILING_BATCH;
        int ceilingDrainers = ceiling != null ? ceiling.drainers() : DEFAULT_CEILING_DRAINERS;
        String topic = brokers.newDestination(Brokers.Kind.KAFKA, "scale");
        Map<Shape, List<Double>> rates = new LinkedHashMap<>();
        Map<Shape, List<Double>> shares = new LinkedHashMap<>();
        try (HikariDataSource pool = services.newPool("scale-out", ceilingDrainers + 2)) {
            Map<Ordering.Mode, PostgresOutboxStore> stores = new LinkedHashMap<>();
            for (Ordering.Mode mode : Ordering.Mode.values()) {
                Ordering ordering = mode == Ordering.Mode.PER_KEY
                        ? Ordering.perKey(Ordering.AfterDeadLetter.HOLD_KEY)
                        : Ordering.none();
                stores.put(mode, tables.create("scale", CompletionMode.KEEP_SENT, WakeUpMode.NONE, ordering, pool));
            }
            for (int run = 0; run < options.runs(); run++) {
                for (Shape shape : shapes()) {
                    PostgresOutboxStore store = stores.get(shape.ordering());
                    String table = store.config().tableName();
                    tables.truncate(store);
                    tables.loadPending(store, options.backlog(), topic);
                    double sql = SqlDrainers.drain(
                            pool,
                            table,
                            false,
                            ceilingBatch,
                            ceilingDrainers,
                            options.backlog(),
                            options.drainWindow());
                    tables.truncate(store);
                    tables.loadPending(store, options.backlog(), topic);
                    double rate = drain(shape, store, pool, topic);
                    rates.computeIfAbsent(shape, s -> new ArrayList<>()).add(rate);
                    shares.computeIfAbsent(shape, s -> new ArrayList<>()).add(rate / sql);
                    Log.line(
                            "S8 run %d: %s: %,.0f rows/s; ceiling SQL just before on the same table %,.0f rows/s "
                                    + "(%.1f %%)",
                            run + 1, shape.label(), rate, sql, 100 * rate / sql);
                }
            }
            stores.values().forEach(tables::truncate);
        }
        List<Drain> drains = new ArrayList<>();
        rates.forEach(
                (shape, list) -> drains.add(new Drain(shape, Stats.median(list), Stats.median(shares.get(shape)))));
        return drains;
    }

    /**
     * Starts the relay JVMs, lets them go at once, and returns the rows they marked per second, counted from
     * the first event marked published (a new JVM's first lease and its producer's first metadata request
     * are a start-up cost, not the relay's rate) until the backlog is empty or the drain window ends.
     */
    private double drain(Shape shape, PostgresOutboxStore store, HikariDataSource pool, String topic) {
        String table = store.config().tableName();
        List<RelayProcess> relays = new ArrayList<>();
        try {
            for (int i = 0; i < shape.processes(); i++) {
                relays.add(RelayProcess.start(new RelayProcess.Settings(
                        services.jdbcUrl(),
                        table,
                        store.config().ordering(),
                        services.kafkaBootstrapServers(),
                        topic,
                        shape.threads(),
                        shape.batchSize(),
                        options.kafkaProperties())));
            }
            relays.forEach(RelayProcess::go);
            long firstDeadline = System.nanoTime() + FIRST_PUBLISH_TIMEOUT.toNanos();
            while (!anySent(pool, table)) {
                if (System.nanoTime() > firstDeadline) {
                    throw new IllegalStateException(shape.label() + ": nothing published within "
                            + FIRST_PUBLISH_TIMEOUT.toSeconds() + " s; the relay JVMs' output is above");
                }
                Thread.sleep(5);
            }
            long start = System.nanoTime();
            long left = remaining(pool, table, false);
            long deadline = start + Math.max(options.drainWindow().toNanos(), MIN_WINDOW.toNanos());
            while (System.nanoTime() < deadline && remaining(pool, table, true) > 0) {
                Thread.sleep(20);
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            return (left - remaining(pool, table, false)) / seconds;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } finally {
            relays.forEach(RelayProcess::close);
        }
    }

    private static boolean anySent(HikariDataSource pool, String table) {
        return count(pool, "SELECT count(*) FROM (SELECT 1 FROM " + table + " WHERE status = 'sent' LIMIT 1) x", table)
                > 0;
    }

    /** Events not marked published yet; with {@code any}, 1 or 0 (cheap enough to ask every few milliseconds). */
    private static long remaining(HikariDataSource pool, String table, boolean any) {
        String where = " WHERE status IN ('pending', 'in_flight')";
        return count(
                pool,
                any
                        ? "SELECT count(*) FROM (SELECT 1 FROM " + table + where + " LIMIT 1) x"
                        : "SELECT count(*) FROM " + table + where,
                table);
    }

    private static long count(HikariDataSource pool, String sql, String table) {
        try (Connection connection = pool.getConnection();
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot count the events in " + table, e);
        }
    }
}
