package dev.outboxjava.testkit.contract;

import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.memory.InMemoryOutboxStore;
import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.core.port.OutboxStore;
import java.util.List;

class InMemoryOperatorStoreContractTest extends OperatorStoreContract {

    @Override
    protected OutboxStore newStore(Ordering ordering) {
        return new InMemoryOutboxStore(CompletionMode.KEEP_SENT, ordering);
    }

    @Override
    protected void append(OutboxStore store, List<OutboxEvent> events) {
        ((InMemoryOutboxStore) store).append(events);
    }
}
