package dev.outboxjava.testkit.contract;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.memory.InMemoryOutboxStore;
import dev.outboxjava.core.port.OutboxStore;
import java.util.List;

class InMemoryOutboxStoreContractTest extends OutboxStoreContract {

    @Override
    protected OutboxStore newStore() {
        return new InMemoryOutboxStore();
    }

    @Override
    protected void append(OutboxStore store, List<OutboxEvent> events) {
        ((InMemoryOutboxStore) store).append(events);
    }
}
