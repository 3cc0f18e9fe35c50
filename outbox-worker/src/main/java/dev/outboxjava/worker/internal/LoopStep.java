package dev.outboxjava.worker.internal;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.function.BooleanSupplier;

/**
 * One step of a loop: run a tick (or probe a dependency), and say how long to wait before the
 * next. Never throws (except a {@link VirtualMachineError}): failures become a backoff.
 */
public interface LoopStep {

    /**
     * What the loop does next.
     *
     * @param delay    how long to wait before the next step
     * @param wakeable whether a wake-up cuts the wait short
     * @param moreWork whether more is waiting than this loop can take in one step (an idle sibling should join)
     * @param probe    during an outage backoff, what ends it early once the dependency answers again (null: none)
     * @param until    what else ends a wakeable wait early when it completes (null: none)
     */
    record Next(Duration delay, boolean wakeable, boolean moreWork, RecoveryProbe probe, CompletionStage<?> until) {

        public Next(Duration delay, boolean wakeable, boolean moreWork, RecoveryProbe probe) {
            this(delay, wakeable, moreWork, probe, null);
        }

        public Next(Duration delay, boolean wakeable, boolean moreWork) {
            this(delay, wakeable, moreWork, null);
        }

        public Next(Duration delay, boolean wakeable) {
            this(delay, wakeable, false);
        }

        /**
         * Run again at once, and more work than one thread's share is waiting (the relay's batch came
         * back full): an idle sibling should join in.
         */
        public static final Next MORE_WORK = new Next(Duration.ZERO, true, true);

        /** Wait for the interval, or less if a wake-up arrives. */
        public static Next idle(Duration interval) {
            return new Next(interval, true);
        }

        /**
         * Wait until {@code done} completes or a wake-up arrives, whichever comes first, and at most
         * {@code atMost}: the step left work under way that it finishes next, unless a wake-up asks for
         * a lease first.
         */
        public static Next untilDone(CompletionStage<?> done, Duration atMost) {
            return new Next(atMost, true, false, null, Objects.requireNonNull(done, "done"));
        }

        /** Wait the full pause; wake-ups do not cut an outage backoff short. */
        public static Next backoff(Duration pause) {
            return new Next(pause, false);
        }

        /**
         * Wait the pause, asking {@code recovered} every {@code probeInterval} whether the dependency
         * is back; stop waiting as soon as it is, so the loop resumes within about one probe interval of
         * the dependency's return however long the pause.
         */
        public static Next backoff(Duration pause, Duration probeInterval, BooleanSupplier recovered) {
            return new Next(pause, false, false, new RecoveryProbe(probeInterval, recovered));
        }
    }

    /**
     * How a loop backing off from an outage finds out early that the dependency is back.
     *
     * @param interval  how often to ask
     * @param recovered whether the dependency answers again (may block for the dependency's own timeout)
     */
    record RecoveryProbe(Duration interval, BooleanSupplier recovered) {
        public RecoveryProbe {
            Objects.requireNonNull(interval, "interval");
            Objects.requireNonNull(recovered, "recovered");
            if (interval.isNegative() || interval.isZero()) {
                throw new IllegalArgumentException("probe interval must be positive, was " + interval);
            }
        }
    }

    /** Runs one step. */
    Next step();

    /**
     * Told how the idle wait before the next step ended: {@code true} for a wake-up, {@code false} for
     * its full interval or, after {@link Next#untilDone}, the work it waited for; only after a
     * {@link Next#wakeable() wakeable} wait.
     */
    default void waited(boolean woken) {}

    /** Called once when the loop stops, after its last step: finish what a step left under way. */
    default void finish() {}

    /** Name of the loop, for thread names and logs. */
    String name();
}
