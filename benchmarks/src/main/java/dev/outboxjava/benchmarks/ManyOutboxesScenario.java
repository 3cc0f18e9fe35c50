package dev.outboxjava.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.outboxjava.benchmarks.internal.OutboxTables;
import dev.outboxjava.benchmarks.internal.Services;
import dev.outboxjava.benchmarks.internal.StatementCounter;
import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.core.port.PublishOutcome;
import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.core.relay.RelayConfig;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.postgres.WakeUpMode;
import dev.outboxjava.worker.MultiOutboxConfig;
import dev.outboxjava.worker.MultiOutboxWorker;
import dev.outboxjava.worker.OutboxWorker;
import dev.outboxjava.worker.OutboxWorkerConfig;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * Scenario 10, many outboxes: tenant schemas with a backlog each (the library's default layout), drained to no
 * broker (a publisher that acknowledges at once: the relay's and the database's share alone) by ONE
 * {@link MultiOutboxWorker} (its tenants found by a discovery rule, {@link BenchmarkConfig#relayThreads()} relay
 * threads) and, in the same run, by one {@link OutboxWorker} per table (the library's one relay thread each) on
 * a pool of the same size, for each number of outboxes of {@link BenchmarkConfig#manyOutboxes()}. Both poll
 * (wake-up none): a worker per table would hold a LISTEN connection per table.
 *
 * <p>Per run: the drain rate (events of every outbox over the time from the first batch handed to the publisher
 * to the last: the workers' start-up is not in it); the spread
 * (each outbox's events published when the first outbox ran out, over an equal share of all published then:
 * the least and the most); then, every outbox empty, the idle cost over {@link BenchmarkConfig#manyIdleTime()},
 * after the idle polling settled: the statements the relay sent per second (counted on its connections,
 * {@link StatementCounter}) and the scans (sequential and index) the database counted on the tenants' tables
 * ({@code pg_stat_user_tables}) per second.
 */
public final class ManyOutboxesScenario {

    /** Events per batch: several turns per outbox, so that the spread says how the turns went round. */
    static final int BATCH_SIZE = 100;
    /** How long a drain may take before it is reported as it stands. */
    static final Duration DRAIN_LIMIT = Duration.ofMinutes(3);

    /** Which relay drained. */
    public enum Relay {
        MANY("one MultiOutboxWorker"),
        PER_TABLE("one OutboxWorker per table");

        private final String display;

        Relay(String display) {
            this.display = display;
        }

        public String display() {
            return display;
        }
    }

    /**
     * One drain and the idle period after it.
     *
     * @param outboxes        how many outboxes
     * @param relay           which relay
     * @param eventsPerSecond every outbox's events over the time from the first batch published to the last
     * @param complete        whether every event was published within {@link #DRAIN_LIMIT}
     * @param minShare        the outbox with the fewest events published when the first ran out, over an equal share
     * @param maxShare        the one with the most, likewise
     * @param idleQueriesPerSecond statements the relay sent per second, every outbox empty
     * @param idleScansPerSecond scans of the tenants' tables per second the database counted meanwhile
     */
    public record Run(
            int outboxes,
            Relay relay,
            double eventsPerSecond,
            boolean complete,
            double minShare,
            double maxShare,
            double idleQueriesPerSecond,
            double idleScansPerSecond) {}

    private final Services services;
    private final OutboxTables tables;
    private final BenchmarkConfig options;
    private final String prefix;

    public ManyOutboxesScenario(Services services, OutboxTables tables, BenchmarkConfig options) {
        this.services = services;
        this.tables = tables;
        this.options = options;
        this.prefix = services.schema() + "_t";
    }

    public List<Run> run() throws InterruptedException {
        int most = options.manyOutboxes().stream()
                .mapToInt(Integer::intValue)
                .max()
                .orElseThrow();
        List<PostgresOutboxStore> stores = new ArrayList<>();
        long created = System.nanoTime();
        try {
            for (int i = 0; i < most; i++) {
                stores.add(tenant(i));
            }
            Log.line("S10 %d tenant schemas created in %.1f s", most, (System.nanoTime() - created) / 1e9);
            List<Run> runs = new ArrayList<>();
            for (int outboxes : options.manyOutboxes()) {
                for (Relay relay : Relay.values()) {
                    runs.add(measure(outboxes, relay, stores.subList(0, outboxes)));
                }
            }
            return runs;
        } finally {
            for (int i = 0; i < stores.size(); i++) {
                services.execute("DROP SCHEMA IF EXISTS " + prefix + i + " CASCADE");
            }
        }
    }

    private PostgresOutboxStore tenant(int i) {
        services.execute("CREATE SCHEMA " + prefix + i);
        PostgresOutboxStore store = PostgresOutboxStore.create(
                services.dataSource(),
                template().toBuilder().tableName(prefix + i + ".outbox_events").build());
        store.ensureSchema();
        return store;
    }

    private static PostgresOutboxConfig template() {
        return PostgresOutboxConfig.builder()
                .tableName("outbox_events")
                .completionMode(CompletionMode.KEEP_SENT)
                .wakeUpMode(WakeUpMode.NONE)
                .build();
    }

    private OutboxWorkerConfig config(int relayThreads) {
        return OutboxWorkerConfig.builder()
                .relay(new RelayConfig(BATCH_SIZE, Duration.ofSeconds(30), Ordering.none()))
                .relayThreads(relayThreads)
                .build();
    }

    private Run measure(int outboxes, Relay relay, List<PostgresOutboxStore> stores) throws InterruptedException {
        for (int i = 0; i < stores.size(); i++) {
            tables.loadPending(stores.get(i), options.manyEvents(), "t" + i);
        }
        CountingPublisher publisher = new CountingPublisher(outboxes, options.manyEvents());
        long total = (long) outboxes * options.manyEvents();
        int poolSize = options.relayThreads() + 1;
        try (HikariDataSource pool = services.newPool("many-" + outboxes + "-" + relay.name(), poolSize)) {
            StatementCounter counter = new StatementCounter();
            List<AutoCloseable> workers = start(relay, stores, counter.wrap(pool), publisher);
            try {
                long deadline = System.nanoTime() + DRAIN_LIMIT.toNanos();
                while (publisher.total() < total && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                boolean complete = publisher.total() >= total;
                double rate = publisher.eventsPerSecond();
                double[] spread = publisher.spread();
                // the idle polling backs off up to its bound first; then every poll finds nothing
                Thread.sleep(MultiOutboxConfig.DEFAULT_MAX_IDLE_POLL_SECONDS * 1000L + 2000L);
                long scansBefore = scans();
                long statementsBefore = counter.statements();
                long idleStart = System.nanoTime();
                Thread.sleep(options.manyIdleTime().toMillis());
                double idleSeconds = (System.nanoTime() - idleStart) / 1e9;
                double queries = (counter.statements() - statementsBefore) / idleSeconds;
                double idle = (scans() - scansBefore) / idleSeconds;
                Log.line(
                        "S10 %d outbox(es), %s: %,.0f events/s%s, spread %.2f-%.2f of an equal share, idle %.1f"
                                + " queries/s and %.1f scans/s",
                        outboxes,
                        relay.display(),
                        rate,
                        complete ? "" : " (not drained within " + DRAIN_LIMIT.toMinutes() + " min)",
                        spread[0],
                        spread[1],
                        queries,
                        idle);
                return new Run(outboxes, relay, rate, complete, spread[0], spread[1], queries, idle);
            } finally {
                for (AutoCloseable worker : workers) {
                    try {
                        worker.close();
                    } catch (Exception e) {
                        Log.line("S10 closing a worker failed: %s", e);
                    }
                }
            }
        }
    }

    private List<AutoCloseable> start(
            Relay relay, List<PostgresOutboxStore> stores, DataSource pool, Publisher publisher) {
        List<AutoCloseable> workers = new ArrayList<>();
        if (relay == Relay.MANY) {
            // the rule finds exactly the first N tenants: their numbers are 0..N-1
            String numbers = stores.size() == 1 ? "0" : "(" + String.join("|", numbers(stores.size())) + ")";
            MultiOutboxWorker worker = MultiOutboxWorker.builder()
                    .database(
                            "bench",
                            pool,
                            dev.outboxjava.worker.OutboxTables.discovered(
                                    Pattern.compile(Pattern.quote(prefix) + numbers), template()))
                    .publisher(publisher)
                    .config(config(options.relayThreads()))
                    .build();
            worker.start();
            workers.add(worker);
            return workers;
        }
        for (PostgresOutboxStore store : stores) {
            OutboxWorker worker = OutboxWorker.builder()
                    .postgres(PostgresOutboxStore.create(pool, store.config()))
                    .publisher(publisher)
                    .config(config(OutboxWorkerConfig.DEFAULT_RELAY_THREADS))
                    .build();
            worker.start();
            workers.add(worker);
        }
        return workers;
    }

    private static List<String> numbers(int count) {
        List<String> numbers = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            numbers.add(Integer.toString(i));
        }
        return numbers;
    }

    /** Sequential and index scans the database counted on the tenants' tables so far. */
    private long scans() {
        String sql = "SELECT coalesce(sum(seq_scan + coalesce(idx_scan, 0)), 0) FROM pg_stat_user_tables"
                + " WHERE schemaname LIKE '" + prefix.replace("_", "\\_") + "%'";
        try (Connection connection = services.dataSource().getConnection();
                Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery(sql)) {
            result.next();
            return result.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException("reading pg_stat_user_tables failed: " + e.getMessage(), e);
        }
    }

    /**
     * Acknowledges every event at once and counts them per destination (one per outbox); when the first outbox
     * ran out, it notes what every outbox had published by then.
     */
    private static final class CountingPublisher implements Publisher {
        private final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();
        private final AtomicLong total = new AtomicLong();
        private final int outboxes;
        private final long perOutbox;
        private volatile double[] spread;
        private volatile long firstNanos;
        private volatile long lastNanos;

        CountingPublisher(int outboxes, long perOutbox) {
            this.outboxes = outboxes;
            this.perOutbox = perOutbox;
        }

        @Override
        public CompletableFuture<List<PublishOutcome>> publish(List<OutboxEvent> batch, Duration timeout) {
            long now = System.nanoTime();
            if (firstNanos == 0) {
                firstNanos = now;
            }
            List<PublishOutcome> outcomes = new ArrayList<>(batch.size());
            for (OutboxEvent event : batch) {
                long published = counts.computeIfAbsent(event.destination(), d -> new AtomicLong())
                        .incrementAndGet();
                total.incrementAndGet();
                if (published == perOutbox) {
                    noteSpread();
                }
                outcomes.add(PublishOutcome.published(event.id()));
            }
            lastNanos = System.nanoTime();
            return CompletableFuture.completedFuture(outcomes);
        }

        private synchronized void noteSpread() {
            if (spread != null) {
                return;
            }
            double share = (double) total.get() / outboxes;
            double min = Double.MAX_VALUE;
            double max = 0;
            for (int i = 0; i < outboxes; i++) {
                AtomicLong count = counts.get("t" + i);
                long published = count == null ? 0 : count.get();
                min = Math.min(min, published / share);
                max = Math.max(max, published / share);
            }
            spread = new double[] {min, max};
        }

        long total() {
            return total.get();
        }

        /** The events published over the time from the first batch handed over to the end of the last one. */
        double eventsPerSecond() {
            long elapsed = lastNanos - firstNanos;
            return elapsed > 0 ? total.get() / (elapsed / 1e9) : Double.NaN;
        }

        /** The least and the most published over an equal share when the first outbox ran out (NaN if none did). */
        double[] spread() {
            double[] noted = spread;
            return noted != null ? noted : new double[] {Double.NaN, Double.NaN};
        }

        @Override
        public HealthCheck checkHealth() {
            return HealthCheck.up("no broker");
        }

        @Override
        public void close() {}
    }
}
