package dev.outboxjava.benchmarks;

import dev.outboxjava.benchmarks.internal.ProgramDatabase;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.postgres.StoreLayout;
import dev.outboxjava.postgres.WakeUpMode;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.IntStream;

/**
 * Prints how long the in-place layout's lease of 100 events takes on a table without sent rows and on one
 * with 1,000,000 sent rows (that the lease stays on the partial index of pending rows is asserted by
 * {@code LeasePlanIT} in outbox-postgres). A program, not a test:
 *
 * <pre>
 * mvn -B -q -pl benchmarks -am package -DskipTests
 * java -cp benchmarks/target/outbox-benchmarks.jar dev.outboxjava.benchmarks.LeaseTimeBenchmark \
 *     [jdbc-url] [sent-rows]
 * </pre>
 *
 * Defaults: {@code jdbc:postgresql://127.0.0.1:5432/test} (user postgres), 1,000,000 sent rows, in a schema of
 * its own, dropped at the end.
 */
public final class LeaseTimeBenchmark {

    private static final int BATCH = 100;

    private LeaseTimeBenchmark() {}

    public static void main(String[] args) {
        String url = args.length > 0 ? args[0] : ProgramDatabase.DEFAULT_URL;
        int sentRows = args.length > 1 ? Integer.parseInt(args[1]) : 1_000_000;
        try (ProgramDatabase postgres = ProgramDatabase.open(url, "bench_lease_time", 2)) {
            PostgresOutboxStore store = PostgresOutboxStore.create(
                    postgres.dataSource(),
                    PostgresOutboxConfig.builder()
                            .layout(StoreLayout.IN_PLACE)
                            .tableName(postgres.schema() + ".outbox_events")
                            .wakeUpMode(WakeUpMode.NONE)
                            .build());
            store.ensureSchema();
            Instant now = Instant.parse("2024-01-01T00:00:00Z");
            double emptyMillis = medianLeaseMillis(store, now);
            System.out.printf("lease of %d events, table without sent rows: median %.3f ms%n", BATCH, emptyMillis);

            long start = System.nanoTime();
            postgres.execute("INSERT INTO " + store.config().tableName() + " (id, type, source, destination, "
                    + "content_type, payload, status, attempts, max_attempts, next_attempt_at, created_at, leased_at, "
                    + "lease_id, sent_at) SELECT gen_random_uuid(), 'order.placed', '/orders', 'orders', "
                    + "'application/json', convert_to(repeat('x', 64), 'UTF8'), 'sent', 0, 10, "
                    + "timestamptz '2023-12-01' + n * interval '1 second', timestamptz '2023-12-01' + n * interval '1 second', "
                    + "timestamptz '2023-12-01' + n * interval '1 second', gen_random_uuid(), "
                    + "timestamptz '2023-12-01' + n * interval '1 second' FROM generate_series(1, " + sentRows
                    + ") AS n");
            postgres.execute("VACUUM ANALYZE " + store.config().tableName());
            System.out.printf("inserted %,d sent rows in %.1f s%n", sentRows, (System.nanoTime() - start) / 1e9);

            double fullMillis = medianLeaseMillis(store, now);
            System.out.printf(
                    "lease of %d events: median %.3f ms without sent rows, %.3f ms with %,d sent rows (ratio %.2f)%n",
                    BATCH, emptyMillis, fullMillis, sentRows, fullMillis / emptyMillis);
        }
    }

    /** Appends a batch, times its lease, marks it published; the median of 15 rounds after 5 warm-up rounds. */
    private static double medianLeaseMillis(PostgresOutboxStore store, Instant now) {
        List<Double> times = new ArrayList<>();
        for (int round = 0; round < 20; round++) {
            List<OutboxEvent> events = IntStream.range(0, BATCH)
                    .mapToObj(i -> OutboxEvent.builder()
                            .clock(Clock.fixed(now, ZoneOffset.UTC))
                            .type("order.placed")
                            .destination("orders")
                            .key("order-" + i)
                            .payload(new byte[64])
                            .build())
                    .toList();
            store.transactional().inTransaction(connection -> events);
            UUID leaseId = UUID.randomUUID();
            long start = System.nanoTime();
            List<OutboxEvent> leased = store.lease(leaseId, BATCH, now);
            long elapsed = System.nanoTime() - start;
            if (leased.isEmpty()) {
                throw new IllegalStateException("the lease found none of the " + BATCH + " events just appended");
            }
            store.markPublished(leaseId, leased.stream().map(OutboxEvent::id).toList(), now);
            if (round >= 5) {
                times.add(elapsed / 1e6);
            }
        }
        times.sort(Double::compare);
        return times.get(times.size() / 2);
    }
}
