package dev.outboxjava.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.time.ManualClock;
import dev.outboxjava.testkit.postgres.PostgresExtension;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class ConcurrentLeaseIT {

    @RegisterExtension
    static final PostgresExtension postgres = new PostgresExtension();

    private static final int EVENTS = 10_000;
    private static final int LEASERS = 4;

    @Test
    @DisplayName("four concurrent leasers over 10,000 pending events never lease one twice and together lease all")
    void fourLeasers() throws Exception {
        ManualClock clock = ManualClock.startingAtEpochOf2024();
        PostgresOutboxStore store = PostgresOutboxStore.create(
                postgres.dataSource(),
                PostgresOutboxConfig.builder()
                        .layout(StoreLayout.IN_PLACE)
                        .tableName(postgres.schema() + ".outbox_events")
                        .build());
        store.ensureSchema();
        Set<UUID> appended = new HashSet<>();
        for (int i = 0; i < EVENTS; i += 1000) {
            List<OutboxEvent> chunk = TestEvents.events(clock, 1000);
            store.transactional().inTransaction(connection -> chunk);
            chunk.forEach(event -> appended.add(event.id()));
        }

        CountDownLatch go = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(LEASERS);
        List<Future<List<UUID>>> results = new ArrayList<>();
        for (int t = 0; t < LEASERS; t++) {
            Callable<List<UUID>> leaser = () -> {
                go.await();
                List<UUID> mine = new ArrayList<>();
                List<OutboxEvent> batch;
                do {
                    batch = store.lease(UUID.randomUUID(), 100, clock.instant());
                    batch.forEach(event -> mine.add(event.id()));
                } while (!batch.isEmpty());
                return mine;
            };
            results.add(pool.submit(leaser));
        }
        go.countDown();
        List<UUID> all = new ArrayList<>();
        List<Integer> perLeaser = new ArrayList<>();
        for (Future<List<UUID>> result : results) {
            List<UUID> mine = result.get();
            perLeaser.add(mine.size());
            all.addAll(mine);
        }
        pool.shutdown();
        System.out.println("events leased per leaser: " + perLeaser);

        assertThat(all).as("no event leased twice").doesNotHaveDuplicates();
        assertThat(new HashSet<>(all)).as("together all events leased").isEqualTo(appended);
        assertThat(store.countByStatus())
                .containsEntry(EventStatus.IN_FLIGHT, (long) EVENTS)
                .containsEntry(EventStatus.PENDING, 0L);
    }
}
