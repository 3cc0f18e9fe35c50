package dev.outboxjava.benchmarks;

import dev.outboxjava.benchmarks.internal.ProgramDatabase;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.postgres.OutboxNotificationListener;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.postgres.StoreLayout;
import dev.outboxjava.postgres.TransactionalOutbox;
import dev.outboxjava.postgres.WakeUpMode;
import java.sql.PreparedStatement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Prints what the NOTIFY wake-up costs producers: business transactions per second (one domain row
 * plus one event each, 4 client threads) with {@link WakeUpMode#NONE} and with
 * {@link WakeUpMode#TRIGGER_NOTIFY} (a listener attached). A program, not a test:
 *
 * <pre>
 * mvn -B -q -pl benchmarks -am package -DskipTests
 * java -cp benchmarks/target/outbox-benchmarks.jar dev.outboxjava.benchmarks.WakeUpCostBenchmark \
 *     [jdbc-url] [seconds-per-mode]
 * </pre>
 *
 * Defaults: {@code jdbc:postgresql://127.0.0.1:5432/test} (user postgres), 10 s per mode, each in a schema of
 * its own, dropped at the end. Figures depend on the machine and its load.
 */
public final class WakeUpCostBenchmark {

    private static final int CLIENTS = 4;

    private WakeUpCostBenchmark() {}

    public static void main(String[] args) throws Exception {
        String url = args.length > 0 ? args[0] : ProgramDatabase.DEFAULT_URL;
        Duration perMode = Duration.ofSeconds(args.length > 1 ? Integer.parseInt(args[1]) : 10);
        for (WakeUpMode mode :
                List.of(WakeUpMode.NONE, WakeUpMode.TRIGGER_NOTIFY, WakeUpMode.NONE, WakeUpMode.TRIGGER_NOTIFY)) {
            try (ProgramDatabase postgres = ProgramDatabase.open(url, "bench_wake_up", CLIENTS + 2)) {
                String schema = postgres.schema();
                PostgresOutboxConfig config = PostgresOutboxConfig.builder()
                        .layout(StoreLayout.IN_PLACE)
                        .tableName(schema + ".outbox_events")
                        .wakeUpMode(mode)
                        .build();
                PostgresOutboxStore store = PostgresOutboxStore.create(postgres.dataSource(), config);
                store.ensureSchema();
                postgres.execute("CREATE TABLE " + schema + ".orders (id uuid PRIMARY KEY, total int NOT NULL)");
                AtomicLong wakeUps = new AtomicLong();
                try (OutboxNotificationListener listener = OutboxNotificationListener.builder(
                                postgres.dataSource(), config.notifyChannel(), wakeUps::incrementAndGet)
                        .start()) {
                    double tps = run(store, schema + ".orders", perMode);
                    System.out.printf(
                            "wake-up %-14s %,8.0f business transactions/s (1 domain row + 1 event, %d "
                                    + "clients, %d s); listener woken %,d times%n",
                            mode, tps, CLIENTS, perMode.toSeconds(), wakeUps.get());
                }
            }
        }
    }

    private static double run(PostgresOutboxStore store, String orders, Duration duration) throws Exception {
        TransactionalOutbox outbox = store.transactional();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong committed = new AtomicLong();
        List<Thread> clients = new ArrayList<>();
        for (int i = 0; i < CLIENTS; i++) {
            clients.add(new Thread(() -> {
                while (!stop.get()) {
                    outbox.inTransaction(connection -> {
                        try (PreparedStatement insert =
                                connection.prepareStatement("INSERT INTO " + orders + " (id, total) VALUES (?, 42)")) {
                            insert.setObject(1, UUID.randomUUID());
                            insert.executeUpdate();
                        }
                        return List.of(OutboxEvent.builder()
                                .clock(Clock.systemUTC())
                                .type("order.placed")
                                .destination("orders")
                                .payload(new byte[256])
                                .build());
                    });
                    committed.incrementAndGet();
                }
            }));
        }
        long start = System.nanoTime();
        clients.forEach(Thread::start);
        Thread.sleep(duration.toMillis());
        stop.set(true);
        for (Thread client : clients) {
            client.join();
        }
        return committed.get() / ((System.nanoTime() - start) / 1e9);
    }
}
