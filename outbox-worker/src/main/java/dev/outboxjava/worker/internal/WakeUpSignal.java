package dev.outboxjava.worker.internal;

import dev.outboxjava.worker.OutboxWakeUp;
import java.time.Duration;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The relay's wake-up: a generation counter under a lock. A loop remembers the generation before
 * its tick and waits only if no signal came since, so a signal that arrives mid-tick is not lost.
 */
public final class WakeUpSignal implements OutboxWakeUp {

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private long generation;

    @Override
    public void signal() {
        lock.lock();
        try {
            generation++;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** The current generation; pass it to {@link #awaitAfter}. */
    public long generation() {
        lock.lock();
        try {
            return generation;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits until a signal newer than {@code seen} arrives or {@code timeout} passes.
     *
     * @return whether a signal arrived
     */
    public boolean awaitAfter(long seen, Duration timeout) throws InterruptedException {
        long remaining = timeout.toNanos();
        lock.lock();
        try {
            while (generation == seen) {
                if (remaining <= 0) {
                    return false;
                }
                remaining = changed.awaitNanos(remaining);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Waits without a generation (sweeper, cleaner): any signal from now on ends the wait. */
    public boolean await(Duration timeout) throws InterruptedException {
        return awaitAfter(generation(), timeout);
    }
}
