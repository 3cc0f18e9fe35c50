package dev.outboxjava.worker.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * Shares a worker's relay threads among many outboxes, fairly: each {@link #take()} hands out the outbox
 * that is due and has the fewest threads on it, and among those the next of a smooth weighted round
 * robin (an outbox of weight 3 is taken three times for one of weight 1 while both have work; with equal
 * weights, one turn each). When the step is {@link #done}, its outcome says when the outbox is due again:
 * at once after a full batch (behind the others due), soon after a short one, after a growing idle wait
 * (the poll interval doubling up to a maximum) when it found nothing, and after its own backoff when it
 * failed, so that a failing outbox never holds the others back.
 *
 * @param <T> what is scheduled (an outbox)
 */
public final class FairScheduler<T> {

    /** What a step on an outbox found. */
    public enum Outcome {
        /** The batch came back full: more is waiting. */
        FULL,
        /** A batch shorter than the batch size: drained, or its keys held by batches in flight. */
        SHORT,
        /** Nothing to lease. */
        EMPTY,
        /** Every event of the batch failed while the broker answers: this outbox's destination refuses. */
        REFUSED,
        /** The store failed (table missing, database down) or the step threw. */
        FAILED
    }

    /** How soon an outbox whose batch came back short is looked at again. */
    static final Duration AFTER_SHORT_BATCH = Duration.ofMillis(10);

    /** One scheduled outbox and its turn; its fields are guarded by the scheduler's lock. */
    public static final class Slot<T> {
        private final T item;
        private final int weight;
        private long dueAtNanos;
        private long idleWaitNanos;
        private int failures;
        private int active;
        private long current;
        private boolean retired;
        private long taken;

        private Slot(T item, int weight, long now, long pollNanos) {
            this.item = item;
            this.weight = weight;
            this.dueAtNanos = now;
            this.idleWaitNanos = pollNanos;
        }

        public T item() {
            return item;
        }
    }

    private final long pollNanos;
    private final long maxIdleNanos;
    private final Backoff backoff;
    private final LongSupplier nanoTime;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final List<Slot<T>> slots = new ArrayList<>();
    private boolean closed;
    private long pausedUntilNanos;
    private boolean paused;

    /**
     * @param pollInterval    the wait after a step that found nothing, the first time
     * @param maxIdleInterval the longest such wait, reached by doubling
     * @param backoff         the wait after a failed step: its own per outbox, growing with its failures
     * @param nanoTime        the time source of due times ({@link System#nanoTime()} outside tests)
     */
    public FairScheduler(Duration pollInterval, Duration maxIdleInterval, Backoff backoff, LongSupplier nanoTime) {
        this.pollNanos = pollInterval.toNanos();
        this.maxIdleNanos = Math.max(pollNanos, maxIdleInterval.toNanos());
        this.backoff = Objects.requireNonNull(backoff, "backoff");
        this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
    }

    /** Schedules {@code item}, due at once. */
    public Slot<T> add(T item, int weight) {
        lock.lock();
        try {
            Slot<T> slot = new Slot<>(item, weight, nanoTime.getAsLong(), pollNanos);
            slots.add(slot);
            changed.signalAll();
            return slot;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Takes {@code slot} out of the schedule: never handed out again; a step under way on it finishes.
     *
     * @return whether no step is under way on it now (else the last {@link #done} returns true for it)
     */
    public boolean retire(Slot<T> slot) {
        lock.lock();
        try {
            slot.retired = true;
            slots.remove(slot);
            return slot.active == 0;
        } finally {
            lock.unlock();
        }
    }

    /** Makes {@code slot} due now (a wake-up for its outbox), and its idle wait the poll interval again. */
    public void wake(Slot<T> slot) {
        lock.lock();
        try {
            if (slot.failures == 0) {
                slot.dueAtNanos = Math.min(slot.dueAtNanos, nanoTime.getAsLong());
                slot.idleWaitNanos = pollNanos;
                changed.signal();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Makes every outbox due now (a wake-up whose outbox is not known, e.g. after a lost LISTEN). */
    public void wakeAll() {
        lock.lock();
        try {
            long now = nanoTime.getAsLong();
            for (Slot<T> slot : slots) {
                if (slot.failures == 0) {
                    slot.dueAtNanos = Math.min(slot.dueAtNanos, now);
                    slot.idleWaitNanos = pollNanos;
                }
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Hands out no outbox for {@code pause} (the broker is down for all of them), or until {@link #resume()}. */
    public void pauseAll(Duration pause) {
        lock.lock();
        try {
            paused = true;
            pausedUntilNanos = nanoTime.getAsLong() + pause.toNanos();
        } finally {
            lock.unlock();
        }
    }

    /** Ends a {@link #pauseAll} early. */
    public void resume() {
        lock.lock();
        try {
            paused = false;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Ends every {@link #take()}: it returns null from now on. */
    public void close() {
        lock.lock();
        try {
            closed = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits for an outbox that is due and takes it; pass it back to {@link #done} after the step.
     *
     * @return null once {@link #close()} was called
     */
    public Slot<T> take() throws InterruptedException {
        lock.lock();
        try {
            while (!closed) {
                long now = nanoTime.getAsLong();
                long wait;
                if (paused && pausedUntilNanos - now > 0) {
                    wait = pausedUntilNanos - now;
                } else {
                    paused = false;
                    Slot<T> next = tryTake(now);
                    if (next != null) {
                        return next;
                    }
                    wait = untilNextDue(now);
                }
                changed.await(wait, TimeUnit.NANOSECONDS);
            }
            return null;
        } finally {
            lock.unlock();
        }
    }

    /** Takes the outbox {@link #pick} chooses, if any; the caller holds the lock or is a test. */
    Slot<T> tryTake(long now) {
        Slot<T> next = pick(now);
        if (next != null) {
            next.active++;
            next.taken++;
        }
        return next;
    }

    /**
     * The outbox to take now, or null: among those due, the ones with the fewest threads on them, and
     * among those the smooth weighted round robin's next (each gains its weight, the one with most
     * is taken and pays the sum of the candidates' weights).
     */
    Slot<T> pick(long now) {
        int fewest = Integer.MAX_VALUE;
        for (Slot<T> slot : slots) {
            if (slot.dueAtNanos - now <= 0) {
                fewest = Math.min(fewest, slot.active);
            }
        }
        if (fewest == Integer.MAX_VALUE) {
            return null;
        }
        Slot<T> best = null;
        long total = 0;
        for (Slot<T> slot : slots) {
            if (slot.dueAtNanos - now <= 0 && slot.active == fewest) {
                slot.current += slot.weight;
                total += slot.weight;
                if (best == null || slot.current > best.current) {
                    best = slot;
                }
            }
        }
        best.current -= total;
        return best;
    }

    private long untilNextDue(long now) {
        long wait = maxIdleNanos;
        for (Slot<T> slot : slots) {
            wait = Math.min(wait, Math.max(1, slot.dueAtNanos - now));
        }
        return wait;
    }

    /**
     * Gives back a slot after its step and sets when it is due again.
     *
     * @return whether the slot was retired meanwhile and this was its last step under way (let it go now)
     */
    public boolean done(Slot<T> slot, Outcome outcome) {
        lock.lock();
        try {
            slot.active--;
            long now = nanoTime.getAsLong();
            switch (outcome) {
                case FULL -> {
                    slot.failures = 0;
                    slot.idleWaitNanos = pollNanos;
                    slot.dueAtNanos = now;
                    changed.signal(); // an idle thread may help
                }
                case SHORT -> {
                    slot.failures = 0;
                    slot.idleWaitNanos = pollNanos;
                    slot.dueAtNanos = Math.max(slot.dueAtNanos, now + AFTER_SHORT_BATCH.toNanos());
                }
                case EMPTY -> {
                    slot.failures = 0;
                    if (slot.dueAtNanos - now > 0) {
                        break; // woken while the step ran: look again then
                    }
                    slot.dueAtNanos = now + slot.idleWaitNanos;
                    slot.idleWaitNanos = Math.min(maxIdleNanos, slot.idleWaitNanos * 2);
                }
                case REFUSED, FAILED -> {
                    slot.failures++;
                    slot.dueAtNanos = now + backoff.delayAfter(slot.failures).toNanos();
                }
            }
            return slot.retired && slot.active == 0;
        } finally {
            lock.unlock();
        }
    }

    /** Whether {@code slot}'s last step failed and it waits out its own backoff. */
    public boolean isBackingOff(Slot<T> slot) {
        lock.lock();
        try {
            return slot.failures > 0;
        } finally {
            lock.unlock();
        }
    }

    /** How many times {@code slot} was taken (for tests and the benchmark's fairness figures). */
    public long timesTaken(Slot<T> slot) {
        lock.lock();
        try {
            return slot.taken;
        } finally {
            lock.unlock();
        }
    }
}
