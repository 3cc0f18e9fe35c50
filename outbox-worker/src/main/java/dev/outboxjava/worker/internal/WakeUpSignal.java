package dev.outboxjava.worker.internal;

import dev.outboxjava.worker.OutboxWakeUp;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The relay threads' wake-up, coalescing signals into as few leases as keep latency low.
 *
 * <p>A signal says "something committed before now". Any lease that STARTS after the signal sees
 * what committed, so the signal is covered once some relay thread begins a lease — whichever thread
 * it is. So a signal wakes ONE idle thread, and only if no lease has started since; a thread that
 * wakes and finds the signal already covered goes back to waiting. Waking every thread for every
 * commit would start four leases per commit, most of them empty, and those statements would compete
 * with the producers for the database.
 *
 * <p>While a lease statement runs, a signal wakes nobody; when the statement returns, one thread
 * takes on the signals that came meanwhile. A lease started beside a running one mostly finds the
 * rows that one just took: at 2,000 commits/s with the in-process signal (benchmark scenario 4),
 * waking threads beside a running lease left 18 % of the leases empty against 6 % with this rule, and
 * a commit → consume p99 of 17.8 against 15.0 ms (27.2 against 18.0 ms with NOTIFY after commit). The
 * wait this adds is at most one lease statement's time.
 *
 * <p>A thread whose batch came back full asks for {@linkplain #wantHelp() help}: one idle thread
 * joins the drain, so a burst is not drained by one thread until the others' next poll.
 *
 * <p>A thread whose batch the broker is still acknowledging {@linkplain #await(Duration, CompletionStage)
 * waits for the acknowledgements and a signal at once}: a signal finds it as it finds an idle thread, so
 * one relay thread leases again while the broker works.
 */
public final class WakeUpSignal implements OutboxWakeUp {

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    /** Signals so far. */
    private long signalled;
    /** The newest signal a lease has started after (or a woken thread has taken on). */
    private long covered;

    private boolean helpWanted;
    /** Lease statements running now. */
    private int leasing;

    private boolean closed;

    /**
     * Wakes one idle relay thread unless a lease has started since the last signal it would serve, or
     * a lease statement runs (its return wakes one then).
     */
    @Override
    public void signal() {
        lock.lock();
        try {
            signalled++;
            if (leasing == 0) {
                changed.signal();
            }
        } finally {
            lock.unlock();
        }
    }

    /** A new start after {@link #close()}: waits wait again. */
    public void reopen() {
        lock.lock();
        try {
            closed = false;
            helpWanted = false;
        } finally {
            lock.unlock();
        }
    }

    /** Shutdown: ends every wait, now and from now on (until {@link #reopen()}). */
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
     * A lease is about to start: it covers every signal so far. Call it right before the lease
     * statement, and {@link #leaseReturned()} once the statement has returned or failed.
     */
    public void leaseStarting() {
        lock.lock();
        try {
            covered = signalled;
            leasing++;
        } finally {
            lock.unlock();
        }
    }

    /** A lease statement has returned (or failed): if signals came while it ran, one idle thread takes them on. */
    public void leaseReturned() {
        lock.lock();
        try {
            leasing--;
            if (leasing == 0 && signalled != covered) {
                changed.signal();
            }
        } finally {
            lock.unlock();
        }
    }

    /** A batch came back full: wake one idle thread to drain beside the caller. */
    public void wantHelp() {
        lock.lock();
        try {
            helpWanted = true;
            changed.signal();
        } finally {
            lock.unlock();
        }
    }

    /** Work a thread waits for has completed: every waiting thread looks whether its own is done. */
    private void wakeAll() {
        lock.lock();
        try {
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** How many threads wait now (for tests and diagnostics). */
    public int waitingThreads() {
        lock.lock();
        try {
            return lock.getWaitQueueLength(changed);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits until a signal that no lease has covered arrives and no lease statement runs (or help is
     * wanted), or {@code timeout} passes. A thread that returns {@code true} takes the signal on: it should lease at once.
     *
     * @return whether the wait ended for a signal (or {@link #close()}) rather than the timeout
     */
    public boolean await(Duration timeout) throws InterruptedException {
        return awaitSignal(timeout, null);
    }

    /**
     * Like {@link #await(Duration)}, but also ends, returning {@code false} and leaving the signals for
     * the next wait, as soon as {@code done} completes: a thread waiting for its batch's acknowledgements
     * leases again when a signal comes first.
     */
    public boolean await(Duration timeout, CompletionStage<?> done) throws InterruptedException {
        CompletableFuture<?> work = done.toCompletableFuture();
        if (!work.isDone()) {
            work.whenComplete((result, failure) -> wakeAll());
        }
        return awaitSignal(timeout, work);
    }

    /** Waits for a signal; also returns {@code false} once {@code done} has completed, unless it is null. */
    private boolean awaitSignal(Duration timeout, CompletableFuture<?> done) throws InterruptedException {
        long remaining = timeout.toNanos();
        lock.lock();
        try {
            // a signal that came while a lease statement runs waits for its return (which wakes a thread)
            while ((signalled == covered || leasing > 0) && !helpWanted && !closed) {
                if (remaining <= 0 || (done != null && done.isDone())) {
                    return false;
                }
                remaining = changed.awaitNanos(remaining);
            }
            covered = signalled;
            helpWanted = false;
            return true;
        } finally {
            lock.unlock();
        }
    }
}
