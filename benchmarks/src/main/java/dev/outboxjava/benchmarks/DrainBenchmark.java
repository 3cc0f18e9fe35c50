package dev.outboxjava.benchmarks;

import dev.outboxjava.benchmarks.internal.ProgramDatabase;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.postgres.StoreLayout;
import dev.outboxjava.postgres.WakeUpMode;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Prints how fast the store appends and drains (lease + mark published, no broker): the database
 * budget the relay spends. A program, not a test:
 *
 * <pre>
 * mvn -B -q -pl benchmarks -am package -DskipTests
 * java -cp benchmarks/target/outbox-benchmarks.jar dev.outboxjava.benchmarks.DrainBenchmark \
 *     [jdbc-url] [events] [drainers] [batch-size]
 * </pre>
 *
 * Defaults: {@code jdbc:postgresql://127.0.0.1:5432/test} (user postgres), 50,000 events, 2 drainers, batches
 * of 500. 1 KB payloads. Each completion mode runs in a schema of its own, dropped at the end.
 */
public final class DrainBenchmark {

    private DrainBenchmark() {}

    public static void main(String[] args) throws Exception {
        String url = args.length > 0 ? args[0] : ProgramDatabase.DEFAULT_URL;
        int events = args.length > 1 ? Integer.parseInt(args[1]) : 50_000;
        int drainers = args.length > 2 ? Integer.parseInt(args[2]) : 2;
        int batch = args.length > 3 ? Integer.parseInt(args[3]) : 500;
        for (CompletionMode mode : CompletionMode.values()) {
            try (ProgramDatabase postgres = ProgramDatabase.open(url, "bench_drain", drainers + 2)) {
                String schema = postgres.schema();
                PostgresOutboxStore store = PostgresOutboxStore.create(
                        postgres.dataSource(),
                        PostgresOutboxConfig.builder()
                                .layout(StoreLayout.IN_PLACE)
                                .tableName(schema + ".outbox_events")
                                .wakeUpMode(WakeUpMode.NONE)
                                .completionMode(mode)
                                .build());
                store.ensureSchema();

                long start = System.nanoTime();
                for (int appended = 0; appended < events; appended += 1000) {
                    List<OutboxEvent> chunk = new ArrayList<>(1000);
                    for (int i = 0; i < Math.min(1000, events - appended); i++) {
                        chunk.add(OutboxEvent.builder()
                                .clock(Clock.systemUTC())
                                .type("order.placed")
                                .key("order-" + (appended + i))
                                .destination("orders")
                                .payload(new byte[1024])
                                .build());
                    }
                    store.transactional().inTransaction(connection -> chunk);
                }
                double appendSeconds = (System.nanoTime() - start) / 1e9;
                postgres.execute("VACUUM ANALYZE " + schema + ".outbox_events");

                AtomicLong drained = new AtomicLong();
                Instant now = Instant.now().plusSeconds(1);
                List<Thread> threads = new ArrayList<>();
                for (int d = 0; d < drainers; d++) {
                    threads.add(new Thread(() -> {
                        List<OutboxEvent> leased;
                        do {
                            UUID leaseId = UUID.randomUUID();
                            leased = store.lease(leaseId, batch, now);
                            if (!leased.isEmpty()) {
                                store.markPublished(
                                        leaseId,
                                        leased.stream().map(OutboxEvent::id).toList(),
                                        now);
                                drained.addAndGet(leased.size());
                            }
                        } while (!leased.isEmpty());
                    }));
                }
                start = System.nanoTime();
                threads.forEach(Thread::start);
                for (Thread thread : threads) {
                    thread.join();
                }
                double drainSeconds = (System.nanoTime() - start) / 1e9;
                System.out.printf(
                        "%-17s append %,7.0f events/s (1,000 per transaction); drain %,7.0f events/s "
                                + "(%d drainers, batches of %d, lease + mark published)%n",
                        mode, events / appendSeconds, drained.get() / drainSeconds, drainers, batch);
            }
        }
    }
}
