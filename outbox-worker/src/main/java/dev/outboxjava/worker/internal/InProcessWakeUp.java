package dev.outboxjava.worker.internal;

import dev.outboxjava.worker.OutboxWakeUp;
import dev.outboxjava.worker.WakeUpSource;

/**
 * Wake-up mode {@code IN_PROCESS}: the application itself signals {@code OutboxWorker.wakeUp()} after
 * each commit, so there is nothing to listen to; this source only tells the worker to expect those
 * signals (and to say so when they never come).
 */
public final class InProcessWakeUp implements WakeUpSource {

    @Override
    public AutoCloseable start(OutboxWakeUp wakeUp) {
        return () -> {};
    }

    @Override
    public String expects() {
        return "OutboxWorker.wakeUp().signal() after each commit that appends (wake-up mode IN_PROCESS)";
    }
}
