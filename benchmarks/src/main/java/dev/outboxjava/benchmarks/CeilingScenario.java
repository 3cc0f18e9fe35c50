package dev.outboxjava.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.outboxjava.benchmarks.internal.Drainers;
import dev.outboxjava.benchmarks.internal.OutboxTables;
import dev.outboxjava.benchmarks.internal.Services;
import dev.outboxjava.benchmarks.internal.Stats;
import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.postgres.WakeUpMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Scenario 1, the ceiling: how fast the database alone drains the backlog with the store's own lease
 * and mark statements (no broker), for the best batch size and number of drainers; and the same with
 * the delete-on-publish shape.
 */
public final class CeilingScenario {

    /** Batch sizes tried. */
    public static final List<Integer> BATCH_SIZES = List.of(500, 1000);
    /** Drainer counts tried. */
    public static final List<Integer> DRAINERS = List.of(1, 2, 4);

    /** How long each configuration drains while looking for the best one. */
    static final java.time.Duration SEARCH_WINDOW = java.time.Duration.ofSeconds(3);

    /** The best configuration and the medians of its rates. */
    public record Result(int batchSize, int drainers, double keepSentRowsPerSecond, double deleteRowsPerSecond) {
    }

    private final Services services;
    private final OutboxTables tables;
    private final BenchmarkOptions options;

    public CeilingScenario(Services services, OutboxTables tables, BenchmarkOptions options) {
        this.services = services;
        this.tables = tables;
        this.options = options;
    }

    public Result run() {
        try (HikariDataSource pool = services.newPool("ceiling", 6)) {
            PostgresOutboxStore keep = tables.create("ceiling_keep", CompletionMode.KEEP_SENT, WakeUpMode.NONE, pool);
            PostgresOutboxStore delete = tables.create("ceiling_delete", CompletionMode.DELETE_ON_PUBLISH,
                    WakeUpMode.NONE, pool);
            int bestBatch = 0;
            int bestDrainers = 0;
            double bestRate = -1;
            for (int batch : BATCH_SIZES) {
                for (int drainers : DRAINERS) {
                    tables.truncate(keep);
                    tables.loadPending(keep, options.searchBacklog(), "ceiling");
                    double rate = Drainers.drain(keep, batch, drainers, options.searchBacklog(), SEARCH_WINDOW);
                    Log.line("S1 search: batch %d, %d drainer(s): %,.0f rows/s (%,d-row backlog)", batch, drainers,
                            rate, options.searchBacklog());
                    if (rate > bestRate) {
                        bestRate = rate;
                        bestBatch = batch;
                        bestDrainers = drainers;
                    }
                }
            }
            List<Double> keepRates = new ArrayList<>();
            List<Double> deleteRates = new ArrayList<>();
            for (int run = 0; run < options.runs(); run++) {
                tables.truncate(keep);
                tables.loadPending(keep, options.backlog(), "ceiling");
                keepRates.add(Drainers.drain(keep, bestBatch, bestDrainers, options.backlog(), options.drainWindow()));
                tables.truncate(delete);
                tables.loadPending(delete, options.backlog(), "ceiling");
                deleteRates.add(Drainers.drain(delete, bestBatch, bestDrainers, options.backlog(), options.drainWindow()));
                Log.line("S1 run %d: keep-sent %,.0f rows/s, delete-on-publish %,.0f rows/s (batch %d, %d drainers)",
                        run + 1, keepRates.get(run), deleteRates.get(run), bestBatch, bestDrainers);
            }
            tables.truncate(keep);
            tables.truncate(delete);
            return new Result(bestBatch, bestDrainers, Stats.median(keepRates), Stats.median(deleteRates));
        }
    }

    static String config(Result r) {
        return String.format(Locale.ROOT, "batch %d, %d drainer(s)", r.batchSize(), r.drainers());
    }
}
