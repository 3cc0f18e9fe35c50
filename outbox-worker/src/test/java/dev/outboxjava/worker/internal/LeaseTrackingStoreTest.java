package dev.outboxjava.worker.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
    private final LeaseTrackingStore leases = new LeaseTrackingStore(store, () -> calls.add("before"),
            () -> calls.add("after"));

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
}
