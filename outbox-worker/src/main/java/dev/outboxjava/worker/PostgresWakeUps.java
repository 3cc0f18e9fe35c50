package dev.outboxjava.worker;

import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.postgres.WakeUpMode;
import dev.outboxjava.worker.internal.InProcessWakeUp;
import dev.outboxjava.worker.internal.PostgresNotifyWakeUp;

/**
 * The worker's side of a PostgreSQL store's {@link WakeUpMode}: what the relay listens to, or
 * expects, besides polling.
 */
public final class PostgresWakeUps {

    private PostgresWakeUps() {}

    /**
     * The wake-up source for the store's mode: a LISTEN on its channel in both NOTIFY modes, the
     * expectation of in-process signals in {@link WakeUpMode#IN_PROCESS}, and for
     * {@link WakeUpMode#NONE} a source that expects nothing and does nothing.
     */
    public static WakeUpSource forStore(PostgresOutboxStore store) {
        WakeUpMode mode = store.config().wakeUpMode();
        if (mode.listens()) {
            return new PostgresNotifyWakeUp(store);
        }
        return mode == WakeUpMode.IN_PROCESS ? new InProcessWakeUp() : PollingOnly.INSTANCE;
    }

    /** Wake-up mode NONE: nothing to start, nothing to expect. */
    enum PollingOnly implements WakeUpSource {
        INSTANCE;

        @Override
        public AutoCloseable start(OutboxWakeUp wakeUp) {
            return () -> {};
        }

        @Override
        public String expects() {
            return "";
        }
    }
}
