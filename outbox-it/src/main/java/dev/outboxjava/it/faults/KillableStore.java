package dev.outboxjava.it.faults;

import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.OutboxStoreException;
import dev.outboxjava.core.port.ForwardingOutboxStore;
import dev.outboxjava.core.port.OutboxStore;

/**
 * A store that stops working for good once its relay is declared dead: every call then fails, as if the
 * process holding it had vanished. That is how an in-JVM relay "dies" without taking the JVM with it.
 */
final class KillableStore extends ForwardingOutboxStore {

    private final String relayName;
    private volatile boolean dead;

    KillableStore(OutboxStore delegate, String relayName) {
        super(delegate);
        this.relayName = relayName;
    }

    void kill() {
        dead = true;
    }

    /** Every forwarded call asks for the delegate: once dead, there is none. */
    @Override
    protected OutboxStore delegate() {
        if (dead) {
            throw new OutboxStoreException("relay " + relayName + " is dead (fault injected): no more database calls");
        }
        return super.delegate();
    }

    @Override
    public HealthCheck checkHealth() {
        return dead ? HealthCheck.down("relay " + relayName + " is dead (fault injected)") : super.checkHealth();
    }
}
