package dev.outboxjava.worker.internal;

import java.time.Duration;

/**
 * One step of a loop: run a tick (or probe a dependency), and say how long to wait before the
 * next. Never throws (except a {@link VirtualMachineError}): failures become a backoff.
 */
public interface LoopStep {

    /** What the loop does next. */
    record Next(Duration delay, boolean wakeable) {
        /** Run again at once (the relay's batch came back full, or a wake-up arrived). */
        public static final Next NOW = new Next(Duration.ZERO, true);

        /** Wait for the interval, or less if a wake-up arrives. */
        public static Next idle(Duration interval) {
            return new Next(interval, true);
        }

        /** Wait the full pause; wake-ups do not cut an outage backoff short. */
        public static Next backoff(Duration pause) {
            return new Next(pause, false);
        }
    }

    /** Runs one step. */
    Next step();

    /** Name of the loop, for thread names and logs. */
    String name();
}
