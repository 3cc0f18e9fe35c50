package dev.outboxjava.worker.internal;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link LoopStep} on its own thread: the first step at once, then each after the delay the
 * previous one asked for (an outage backoff ends early once its probe finds the dependency back).
 * {@link #requestStop()} ends the loop before its next step; a step in
 * progress is never interrupted here (the worker decides, after its shutdown bound).
 */
public final class LoopThread {

    private static final Logger log = LoggerFactory.getLogger(LoopThread.class);

    private final LoopStep step;
    private final WakeUpSignal wakeUp;
    private final CountDownLatch stopRequested = new CountDownLatch(1);
    private final Thread thread;
    /** Guards {@link #probing}: a stop interrupts a recovery probe, never a step. */
    private final Object probeLock = new Object();

    private boolean probing;

    public LoopThread(LoopStep step, WakeUpSignal wakeUp) {
        this.step = Objects.requireNonNull(step, "step");
        this.wakeUp = Objects.requireNonNull(wakeUp, "wakeUp");
        this.thread = new Thread(this::run, "outbox-" + step.name());
        this.thread.setDaemon(true);
        this.thread.setUncaughtExceptionHandler((t, e) -> log.error("loop {} died: {}", step.name(), e.toString(), e));
    }

    public void start() {
        thread.start();
    }

    /**
     * Asks the loop to end before its next step; wakes it if it waits, and interrupts a recovery probe
     * under way (one may block for the dependency's own timeout, which a shutdown should not wait for).
     */
    public void requestStop() {
        stopRequested.countDown();
        wakeUp.close();
        synchronized (probeLock) {
            if (probing) {
                thread.interrupt();
            }
        }
    }

    /** Waits up to {@code timeout} for the loop to end. @return whether it ended */
    public boolean join(Duration timeout) throws InterruptedException {
        thread.join(Math.max(1, timeout.toMillis()));
        return !thread.isAlive();
    }

    /** Interrupts a step that overran the shutdown bound. */
    public void interrupt() {
        thread.interrupt();
    }

    public boolean isAlive() {
        return thread.isAlive();
    }

    public String name() {
        return step.name();
    }

    private boolean stopping() {
        return stopRequested.getCount() == 0;
    }

    /**
     * Waits out an outage backoff, probing every probe interval whether the dependency is back and
     * ending the wait as soon as it is (a probe that blocks only delays the next one).
     */
    private void backOff(Duration pause, LoopStep.RecoveryProbe probe) throws InterruptedException {
        long deadline = System.nanoTime() + pause.toNanos();
        while (true) {
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0) {
                return;
            }
            if (stopRequested.await(Math.min(remaining, probe.interval().toNanos()), TimeUnit.NANOSECONDS)) {
                return;
            }
            if (deadline - System.nanoTime() <= 0) {
                return;
            }
            if (probeRecovered(probe)) {
                log.debug("loop {} ends its backoff: the dependency answers again", step.name());
                return;
            }
        }
    }

    /** Runs one probe; false when a stop came first or interrupted it (the loop then ends). */
    private boolean probeRecovered(LoopStep.RecoveryProbe probe) {
        synchronized (probeLock) {
            if (stopping()) {
                return false;
            }
            probing = true;
        }
        boolean recovered;
        try {
            recovered = probe.recovered().getAsBoolean();
        } finally {
            synchronized (probeLock) {
                probing = false;
            }
        }
        if (stopping()) {
            Thread.interrupted(); // the stop's interrupt was for the probe; the loop's finish runs undisturbed
            return false;
        }
        return recovered;
    }

    private void run() {
        log.debug("loop {} started", step.name());
        try {
            while (!stopping()) {
                LoopStep.Next next = step.step();
                if (next.moreWork()) {
                    wakeUp.wantHelp();
                }
                if (stopping() || next.delay().isZero()) {
                    continue;
                }
                if (next.wakeable()) {
                    step.waited(
                            next.until() == null
                                    ? wakeUp.await(next.delay())
                                    : wakeUp.await(next.delay(), next.until()));
                } else if (next.probe() != null) {
                    backOff(next.delay(), next.probe());
                } else {
                    stopRequested.await(next.delay().toNanos(), TimeUnit.NANOSECONDS);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        step.finish();
        log.debug("loop {} stopped", step.name());
    }
}
