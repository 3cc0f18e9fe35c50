package dev.outboxjava.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.outboxjava.benchmarks.internal.BusinessWork;
import dev.outboxjava.benchmarks.internal.InterleavedLoad;
import dev.outboxjava.benchmarks.internal.OutboxTables;
import dev.outboxjava.benchmarks.internal.Services;
import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.postgres.OutboxWriter;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.postgres.StoreLayout;
import dev.outboxjava.postgres.WakeUpMode;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Scenario 5: what appending one event costs a business transaction. Saturated producers commit
 * (a) the business row alone, (b) plus one event through {@link OutboxWriter}, (c) plus the same row
 * by a hand-written prepared INSERT (the floor: a plain INSERT of the row, without the writer's lookup of
 * the id in the append-only log), on the library's default layout. No wake-up trigger in any of them, so this is the
 * append alone (scenario 4 prices the wake-ups). Both (b) and (c) build the event with the core's
 * builder. One continuous load, the mode switched every {@linkplain #phase phase} in a rotating
 * order ({@link InterleavedLoad}).
 */
public final class ProducerOverheadScenario {

    /** What the transaction does. */
    public enum Mode {
        BUSINESS_ONLY,
        LIBRARY_APPEND,
        HAND_INSERT
    }

    /** Unmeasured time before the rounds. */
    static final Duration WARM_UP = Duration.ofSeconds(2);

    private final Map<Mode, List<Double>> cpuMicros = new EnumMap<>(Mode.class);
    private final Services services;
    private final OutboxTables tables;
    private final BenchmarkConfig options;

    public ProducerOverheadScenario(Services services, OutboxTables tables, BenchmarkConfig options) {
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
        try (HikariDataSource pool = services.newPool("producers", options.producers() + 2)) {
            PostgresOutboxStore store = tables.create(
                    "append",
                    CompletionMode.KEEP_SENT,
                    WakeUpMode.NONE,
                    Ordering.none(),
                    PostgresOutboxConfig.DEFAULT_LAYOUT,
                    pool);
            OutboxWriter writer = store.writer();
            BusinessWork business = BusinessWork.create(services);
            String table = store.config().tableName();
            // the columns the writer sets: the in-place table's status columns, which the append-only log has not
            boolean inPlace = store.config().layout() == StoreLayout.IN_PLACE;
            String handInsert = "INSERT INTO " + table + " (id, type, source, event_key, destination, routing_key, "
                    + "content_type, payload, headers, " + (inPlace ? "status, attempts, " : "")
                    + "max_attempts, next_attempt_at, created_at) "
                    + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, " + (inPlace ? "'pending', 0, " : "") + "?, ?, ?)";
            try {
                InterleavedLoad.Rates<Mode> rates = new InterleavedLoad<>(
                                Mode.class, "S5", phase(options), rounds(options), WARM_UP)
                        .run(
                                pool,
                                options.producers(),
                                (mode, connection) -> {
                                    business.insertOrder(connection);
                                    if (mode == Mode.LIBRARY_APPEND) {
                                        writer.append(connection, List.of(BusinessWork.event("orders")));
                                    } else if (mode == Mode.HAND_INSERT) {
                                        insertByHand(connection, handInsert, BusinessWork.event("orders"));
                                    }
                                },
                                mode -> {});
                cpuMicros.putAll(rates.cpuMicros());
                return rates.tps();
            } finally {
                tables.truncate(store);
                services.execute("TRUNCATE " + business.table());
            }
        }
    }

    /** Rounds: 48 per run (144 by default), each giving every mode one phase. */
    static int rounds(BenchmarkConfig options) {
        return options.runs() * 48;
    }

    /** Each mode's phase of a round: a sixteenth of {@code --producer-seconds}, at least 100 ms. */
    static Duration phase(BenchmarkConfig options) {
        return Duration.ofMillis(Math.max(100, options.producerTime().toMillis() / 16));
    }

    private static void insertByHand(Connection connection, String handInsert, OutboxEvent e) throws SQLException {
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
}
