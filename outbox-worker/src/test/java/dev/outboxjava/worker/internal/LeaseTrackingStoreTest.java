package dev.outboxjava.worker.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.OutboxStoreException;
import dev.outboxjava.core.memory.InMemoryOutboxStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class LeaseTrackingStoreTest {

    private final InMemoryOutboxStore store = new InMemoryOutboxStore();
    private final List<String> calls = new ArrayList<>();
    private final LeaseTrackingStore leases =
            new LeaseTrackingStore(store, () -> calls.add("before"), () -> calls.add("after"));

    @Test
    @DisplayName("the hooks run around every lease statement")
    void hooksAroundLease() {
        leases.lease(UUID.randomUUID(), 10, Instant.now());
        assertThat(calls).containsExactly("before", "after");
    }

    @Test
    @DisplayName("a lease that fails still runs the after hook (else the wake-up would wait for it forever)")
    void afterHookOnFailure() {
        store.setAvailable(false);
        assertThatThrownBy(() -> leases.lease(UUID.randomUUID(), 10, Instant.now()))
                .isInstanceOf(OutboxStoreException.class);
        assertThat(calls).containsExactly("before", "after");
    }

    @Test
    @DisplayName("on shutdown, counts what the relay threads and releaseOutstanding give back, once each")
    void countsShutdownReleases() {
        List<OutboxEvent> events = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            events.add(OutboxEvent.builder()
                    .type("t")
                    .destination("d")
                    .payload(new byte[0])
                    .build());
        }
        store.append(events);
        UUID lease = UUID.randomUUID();
        Instant now = Instant.now();
        List<OutboxEvent> leased = leases.lease(lease, 10, now);
        leases.release(lease, List.of(leased.get(0).id()), now); // per-key hold-back, before the shutdown

        leases.countReleases();
        leases.release(lease, List.of(leased.get(1).id(), leased.get(2).id()), now); // a relay thread
        int fromHere = leases.releaseOutstanding(now); // the worker, for what is left

        assertThat(fromHere).isEqualTo(2);
        assertThat(leases.releasedSinceCounting()).isEqualTo(4);
        assertThat(store.countByStatus().get(EventStatus.PENDING)).isEqualTo(5);
    }
}
