package dev.outboxjava.postgres;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.testkit.postgres.PostgresFixture;
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
 * mvn -q -pl outbox-postgres exec:java -Dexec.classpathScope=test \
 *     -Dexec.mainClass=dev.outboxjava.postgres.WakeUpCostBenchmark [-Dexec.args="10"]
 * </pre>
 *
 * The argument is the seconds per mode (default 10). Figures depend on the machine and its load.
 */
public final class WakeUpCostBenchmark {

    private static final int CLIENTS = 4;

    public static void main(String[] args) throws Exception {
        Duration perMode = Duration.ofSeconds(args.length > 0 ? Integer.parseInt(args[0]) : 10);
        try (PostgresFixture postgres = PostgresFixture.start()) {
            for (WakeUpMode mode :
                    List.of(WakeUpMode.NONE, WakeUpMode.TRIGGER_NOTIFY, WakeUpMode.NONE, WakeUpMode.TRIGGER_NOTIFY)) {
                String schema = postgres.newSchema();
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
                postgres.dropSchema(schema);
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
