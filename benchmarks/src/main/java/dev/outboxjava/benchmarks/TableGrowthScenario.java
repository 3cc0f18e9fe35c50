package dev.outboxjava.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.outboxjava.benchmarks.internal.OutboxTables;
import dev.outboxjava.benchmarks.internal.Services;
import dev.outboxjava.benchmarks.internal.Stats;
import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.postgres.WakeUpMode;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Scenario 6, table growth: the store's lease statement (a batch of {@link BenchmarkConfig#batchSize()})
 * on a table with no sent rows and on one with {@link BenchmarkConfig#sentRows()} sent rows older
 * than the pending ones, both vacuumed and analysed. Leases alternate between the two tables (so load
 * spikes hit both); one connection per table, so the driver's server-prepared (generic) plan is what
 * most leases use.
 */
public final class TableGrowthScenario {

    /** Payload of each sent row: small, so ten million rows load in a minute or two (the lease never reads them). */
    public static final int SENT_PAYLOAD_BYTES = 128;

    /** Unmeasured leases per table before timing starts. */
    static final int WARM_UP_LEASES = 12;

    /** Median lease latencies (ms) per run, same index = same run. */
    public record Result(List<Double> emptyMillis, List<Double> grownMillis, long sentRows, double loadSeconds) {}

    private final Services services;
    private final OutboxTables tables;
    private final BenchmarkConfig options;

    public TableGrowthScenario(Services services, OutboxTables tables, BenchmarkConfig options) {
        this.services = services;
        this.tables = tables;
        this.options = options;
    }

    public Result run() {
        int leases = options.leasesPerRun();
        long pending = ((long) options.runs() * leases + WARM_UP_LEASES) * options.batchSize();
        try (HikariDataSource emptyPool = services.newPool("growth-empty", 1);
                HikariDataSource grownPool = services.newPool("growth-grown", 1)) {
            PostgresOutboxStore empty =
                    tables.create("growth_empty", CompletionMode.KEEP_SENT, WakeUpMode.NONE, emptyPool);
            PostgresOutboxStore grown =
                    tables.create("growth_sent", CompletionMode.KEEP_SENT, WakeUpMode.NONE, grownPool);
            long loadStart = System.nanoTime();
            tables.loadSent(grown, options.sentRows(), SENT_PAYLOAD_BYTES);
            double loadSeconds = (System.nanoTime() - loadStart) / 1e9;
            Log.line("S6 loaded %,d sent rows in %.0f s", options.sentRows(), loadSeconds);
            tables.loadPending(empty, pending, "growth");
            tables.loadPending(grown, pending, "growth");
            List<Double> emptyMillis = new ArrayList<>();
            List<Double> grownMillis = new ArrayList<>();
            Clock clock = Clock.systemUTC();
            // past the driver's prepare threshold (5) and the server's custom-plan tries (5): generic plans from here
            // on
            for (int i = 0; i < WARM_UP_LEASES; i++) {
                time(empty, clock);
                time(grown, clock);
            }
            for (int run = 0; run < options.runs(); run++) {
                List<Double> e = new ArrayList<>();
                List<Double> g = new ArrayList<>();
                for (int i = 0; i < leases; i++) {
                    e.add(time(empty, clock));
                    g.add(time(grown, clock));
                }
                emptyMillis.add(Stats.median(e));
                grownMillis.add(Stats.median(g));
                Log.line(
                        "S6 run %d: lease of %d: %.2f ms with 0 sent rows, %.2f ms with %,d sent rows",
                        run + 1, options.batchSize(), emptyMillis.get(run), grownMillis.get(run), options.sentRows());
            }
            services.execute("DROP TABLE " + grown.config().tableName());
            services.execute("DROP TABLE " + empty.config().tableName());
            return new Result(emptyMillis, grownMillis, options.sentRows(), loadSeconds);
        }
    }

    private double time(PostgresOutboxStore store, Clock clock) {
        long start = System.nanoTime();
        int leased = store.lease(UUID.randomUUID(), options.batchSize(), clock.instant())
                .size();
        double millis = (System.nanoTime() - start) / 1e6;
        if (leased != options.batchSize()) {
            throw new IllegalStateException("leased " + leased + " events, expected " + options.batchSize());
        }
        return millis;
    }
}
