package dev.outboxjava.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.outboxjava.benchmarks.internal.BusinessWork;
import dev.outboxjava.benchmarks.internal.OutboxTables;
import dev.outboxjava.benchmarks.internal.ProducerLoad;
import dev.outboxjava.benchmarks.internal.Services;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.postgres.OutboxWriter;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.postgres.WakeUpMode;
import java.sql.PreparedStatement;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Scenario 5: what appending one event costs a business transaction. Saturated producers commit
 * (a) the business row alone, (b) plus one event through {@link OutboxWriter}, (c) plus the same row
 * by a hand-written prepared INSERT (the floor). No wake-up trigger in any of them, so this is the
 * append alone (scenario 4 prices the wake-ups). Both (b) and (c) build the event with the core's
 * builder; the modes alternate, in a rotating order, with the tables emptied before each measurement.
 */
public final class ProducerOverheadScenario {

    /** What the transaction does. */
    public enum Mode { BUSINESS_ONLY, LIBRARY_APPEND, HAND_INSERT }

    /**
     * Rounds per run: one round's ratio between two modes spread from −10 % to +30 % on the shared
     * 2-core machine, around a difference of a few per cent, so a median of three said little.
     */
    static final int ROUNDS_PER_RUN = 3;

    /** Unmeasured time per mode before the runs. */
    static final Duration WARM_UP = Duration.ofSeconds(2);

    private final Map<Mode, List<Double>> cpuMicros = new EnumMap<>(Mode.class);
    private final Services services;
    private final OutboxTables tables;
    private final BenchmarkOptions options;

    public ProducerOverheadScenario(Services services, OutboxTables tables, BenchmarkOptions options) {
        this.services = services;
        this.tables = tables;
        this.options = options;
    }

    /** Producer-thread JVM CPU microseconds per transaction, per mode and round (filled by {@link #run()}). */
    public Map<Mode, List<Double>> cpuMicrosPerTransaction() {
        return cpuMicros;
    }

    /** @return transactions per second per mode, one entry per round (same index = same round) */
    public Map<Mode, List<Double>> run() {
        Map<Mode, List<Double>> tps = new EnumMap<>(Mode.class);
        for (Mode mode : Mode.values()) {
            tps.put(mode, new ArrayList<>());
            cpuMicros.put(mode, new ArrayList<>());
        }
        try (HikariDataSource pool = services.newPool("producers", options.producers() + 2)) {
            PostgresOutboxStore store = tables.create("append", CompletionMode.KEEP_SENT, WakeUpMode.NONE, pool);
            OutboxWriter writer = store.writer();
            BusinessWork business = BusinessWork.create(services);
            String table = store.config().tableName();
            String handInsert = "INSERT INTO " + table + " (id, type, source, event_key, destination, routing_key, "
                    + "content_type, payload, headers, status, attempts, max_attempts, next_attempt_at, created_at) "
                    + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, 'pending', 0, ?, ?, ?)";
            Mode[] modes = Mode.values();
            // warm-up: the JIT compiles every path before anything is measured
            for (Mode mode : modes) {
                measure(pool, store, business, writer, handInsert, mode, WARM_UP);
            }
            for (int round = 0; round < options.runs() * ROUNDS_PER_RUN; round++) {
                for (int k = 0; k < modes.length; k++) {
                    Mode mode = modes[(k + round) % modes.length];
                    double rate = measure(pool, store, business, writer, handInsert, mode, options.producerTime());
                    tps.get(mode).add(rate);
                    double cpu = ProducerLoad.lastCpuMicrosPerTransaction();
                    cpuMicros.get(mode).add(cpu);
                    Log.line("S5 round %d: %s %,.0f transactions/s (%d producers), producer JVM CPU %.0f us/tx",
                            round + 1, mode, rate, options.producers(), cpu);
                }
            }
            tables.truncate(store);
        }
        return tps;
    }

    private double measure(HikariDataSource pool, PostgresOutboxStore store, BusinessWork business, OutboxWriter writer,
            String handInsert, Mode mode, Duration duration) {
        tables.truncate(store);
        services.execute("TRUNCATE " + business.table());
        return ProducerLoad.saturate(pool, options.producers(), duration, connection -> {
            business.insertOrder(connection);
            if (mode == Mode.LIBRARY_APPEND) {
                writer.append(connection, List.of(BusinessWork.event("orders")));
            } else if (mode == Mode.HAND_INSERT) {
                OutboxEvent e = BusinessWork.event("orders");
                try (PreparedStatement insert = connection.prepareStatement(handInsert)) {
                    insert.setObject(1, e.id());
                    insert.setString(2, e.type());
                    insert.setString(3, e.source());
                    insert.setString(4, e.key().orElse(null));
                    insert.setString(5, e.destination());
                    insert.setString(6, e.routingKey());
                    insert.setString(7, e.contentType());
                    insert.setBytes(8, e.payload());
                    insert.setString(9, "{}");
                    insert.setInt(10, e.maxAttempts());
                    insert.setTimestamp(11, Timestamp.from(e.nextAttemptAt()));
                    insert.setTimestamp(12, Timestamp.from(e.createdAt()));
                    insert.executeUpdate();
                }
            }
            return null;
        }, (result, at) -> { });
    }
}
