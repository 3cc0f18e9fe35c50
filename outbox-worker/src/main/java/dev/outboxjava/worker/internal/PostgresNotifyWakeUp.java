package dev.outboxjava.worker.internal;

import dev.outboxjava.postgres.OutboxNotificationListener;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.worker.OutboxWakeUp;
import dev.outboxjava.worker.WakeUpSource;
import jakarta.inject.Inject;
import java.util.Objects;

/**
 * Wakes the relay on the outbox table's NOTIFY, through an {@link OutboxNotificationListener} on the
 * store's data source (any data source whose connections unwrap to pgjdbc's {@code PGConnection}).
 */
public final class PostgresNotifyWakeUp implements WakeUpSource {

    private final PostgresOutboxStore store;

    @Inject
    public PostgresNotifyWakeUp(PostgresOutboxStore store) {
        this.store = Objects.requireNonNull(store, "store");
    }

    @Override
    public AutoCloseable start(OutboxWakeUp wakeUp) {
        return OutboxNotificationListener.builder(
                        store.dataSource(), store.config().notifyChannel(), wakeUp::signal)
                .start();
    }

    @Override
    public String expects() {
        return "a NOTIFY on channel " + store.config().notifyChannel()
                + " after each commit that appends (wake-up mode "
                + store.config().wakeUpMode() + ")";
    }
}
