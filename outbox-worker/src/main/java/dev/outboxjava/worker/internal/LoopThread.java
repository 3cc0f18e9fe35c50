package dev.outboxjava.worker.internal;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link LoopStep} on its own thread: the first step at once, then each after the delay the
 * previous one asked for. {@link #requestStop()} ends the loop before its next step; a step in
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
