package dev.outboxjava.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.outboxjava.benchmarks.internal.CpuBreakdown;
import dev.outboxjava.benchmarks.internal.Drainers;
import dev.outboxjava.benchmarks.internal.OutboxTables;
import dev.outboxjava.benchmarks.internal.Services;
import dev.outboxjava.benchmarks.internal.SqlDrainers;
import dev.outboxjava.benchmarks.internal.Stats;
import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.postgres.WakeUpMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Scenario 1, the ceiling: how fast the database alone drains the backlog. The ceiling is plain
 * JDBC running SQL of the store's shape ({@link SqlDrainers}), for the best batch size and number of
 * drainers, in both completion modes. Beside it, at the same configuration, the library's own
 * {@link PostgresOutboxStore} lease and mark calls with no broker ({@link Drainers}): the gap between
 * the two is the store's Java and SQL-rendering cost.
 */
public final class CeilingScenario {

    /** Batch sizes tried. */
    public static final List<Integer> BATCH_SIZES = List.of(500, 1000);
    /** Drainer counts tried. */
    public static final List<Integer> DRAINERS = List.of(1, 2, 4);
    /** How long each configuration drains while looking for the best one. */
    static final Duration SEARCH_WINDOW = Duration.ofSeconds(3);

    /** Rows drained, unmeasured, through the store before its runs. */
    static final int WARM_UP_ROWS = 20_000;

    /** The best configuration and the medians of its rates (rows/s). */
    public record Result(
            int batchSize, int drainers, List<Double> keepSent, List<Double> delete, List<Double> storeKeepSent) {

        public double keepSentRowsPerSecond() {
            return Stats.median(keepSent);
        }

        public double deleteRowsPerSecond() {
            return Stats.median(delete);
        }

        public double storeKeepSentRowsPerSecond() {
            return Stats.median(storeKeepSent);
        }
    }

    private final Services services;
    private final OutboxTables tables;
    private final BenchmarkConfig options;
    private String keepCpu = "";

    public CeilingScenario(Services services, OutboxTables tables, BenchmarkConfig options) {
        this.services = services;
        this.tables = tables;
        this.options = options;
    }

    /** Where the CPU went in the last keep-sent SQL drain. */
    public String keepSentCpu() {
        return keepCpu;
    }

    public Result run() {
        try (HikariDataSource pool = services.newPool("ceiling", 6)) {
            PostgresOutboxStore keep = tables.create("ceiling_keep", CompletionMode.KEEP_SENT, WakeUpMode.NONE, pool);
            PostgresOutboxStore delete =
                    tables.create("ceiling_delete", CompletionMode.DELETE_ON_PUBLISH, WakeUpMode.NONE, pool);
            String keepTable = keep.config().tableName();
            int bestBatch = 0;
            int bestDrainers = 0;
            double bestRate = -1;
            for (int batch : BATCH_SIZES) {
                for (int drainers : DRAINERS) {
                    tables.truncate(keep);
                    tables.loadPending(keep, options.searchBacklog(), "ceiling");
                    double rate = SqlDrainers.drain(
                            pool, keepTable, false, batch, drainers, options.searchBacklog(), SEARCH_WINDOW);
                    Log.line(
                            "S1 search: batch %d, %d drainer(s): %,.0f rows/s (%,d-row backlog, %d s at most)",
                            batch, drainers, rate, options.searchBacklog(), SEARCH_WINDOW.toSeconds());
                    if (rate > bestRate) {
                        bestRate = rate;
                        bestBatch = batch;
                        bestDrainers = drainers;
                    }
                }
            }
            // warm-up: the store's code (jOOQ, the row mapping) loads and compiles before it is timed
            tables.truncate(keep);
            tables.loadPending(keep, WARM_UP_ROWS, "ceiling");
            Drainers.drain(keep, bestBatch, bestDrainers, WARM_UP_ROWS, Duration.ofSeconds(30));
            List<Double> keepRates = new ArrayList<>();
            List<Double> deleteRates = new ArrayList<>();
            List<Double> storeRates = new ArrayList<>();
            for (int run = 0; run < options.runs(); run++) {
                tables.truncate(keep);
                tables.loadPending(keep, options.backlog(), "ceiling");
                CpuBreakdown cpu = CpuBreakdown.start();
                keepRates.add(SqlDrainers.drain(
                        pool, keepTable, false, bestBatch, bestDrainers, options.backlog(), options.drainWindow()));
                keepCpu = cpu.perEvent(options.backlog());
                tables.truncate(delete);
                tables.loadPending(delete, options.backlog(), "ceiling");
                deleteRates.add(SqlDrainers.drain(
                        pool,
                        delete.config().tableName(),
                        true,
                        bestBatch,
                        bestDrainers,
                        options.backlog(),
                        options.drainWindow()));
                if (run == 0) {
                    // a diagnostic, measured once: the library's own statements at the ceiling's configuration
                    tables.truncate(keep);
                    tables.loadPending(keep, options.backlog(), "ceiling");
                    CpuBreakdown storeCpu = CpuBreakdown.start();
                    storeRates.add(
                            Drainers.drain(keep, bestBatch, bestDrainers, options.backlog(), options.drainWindow()));
                    Log.line("S1 store keep-sent: %s", storeCpu.perEvent(options.backlog()));
                }
                Log.line(
                        "S1 run %d: SQL keep-sent %,.0f rows/s (%s), SQL delete-on-publish %,.0f rows/s, store "
                                + "keep-sent %,.0f rows/s (run 1; batch %d, %d drainers)",
                        run + 1,
                        keepRates.get(run),
                        keepCpu,
                        deleteRates.get(run),
                        storeRates.get(0),
                        bestBatch,
                        bestDrainers);
            }
            tables.truncate(keep);
            tables.truncate(delete);
            return new Result(bestBatch, bestDrainers, keepRates, deleteRates, storeRates);
        }
    }

    static String config(Result r) {
        return String.format(Locale.ROOT, "batch %d, %d drainer(s)", r.batchSize(), r.drainers());
    }
}
