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

    /** Asks the loop to end before its next step; wakes it if it waits. */
    public void requestStop() {
        stopRequested.countDown();
        wakeUp.close();
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
            if (probe.recovered().getAsBoolean()) {
                log.debug("loop {} ends its backoff: the dependency answers again", step.name());
                return;
            }
        }
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
                    wakeUp.await(next.delay());
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
