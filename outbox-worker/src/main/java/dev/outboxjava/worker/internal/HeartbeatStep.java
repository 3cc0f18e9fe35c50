package dev.outboxjava.worker.internal;

import dev.outboxjava.core.port.WorkerHeartbeat;
import dev.outboxjava.core.port.WorkerHeartbeats;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker's heartbeat: every interval, one upsert of what it is and when it last leased and failed; and
 * at most once an hour the deletion of workers gone for {@link WorkerHeartbeat#GONE_KEPT_FOR}. It never
 * stops the relay: a failed beat is logged once per outage (WARN) and the next beat tries again. When the
 * store has nowhere to record beats (the table is missing), the heartbeat is off for this run, said once at
 * INFO. A clean stop removes the worker's own heartbeat.
 */
public final class HeartbeatStep implements LoopStep {

    private static final Logger log = LoggerFactory.getLogger(HeartbeatStep.class);
    /** How often the heartbeats of long-gone workers are deleted. */
    private static final Duration FORGET_EVERY = Duration.ofHours(1);

    private final WorkerHeartbeats beats;
    private final Supplier<WorkerHeartbeat> current;
    private final Duration interval;
    private final OutageTracker outage;
    private final Clock clock;
    private WorkerHeartbeat last;
    /** Null until the store was asked whether it can record beats. */
    private Boolean available;

    /** When the heartbeats of long-gone workers are next deleted; null: at the first beat. */
    private java.time.Instant nextForget;

    /**
     * @param current what the worker is now, beaten at the clock's instant
     * @param outage  tracks failed beats, so an outage of the heartbeat is logged once
     */
    public HeartbeatStep(
            WorkerHeartbeats beats,
            Supplier<WorkerHeartbeat> current,
            Duration interval,
            OutageTracker outage,
            Clock clock) {
        this.beats = Objects.requireNonNull(beats, "beats");
        this.current = Objects.requireNonNull(current, "current");
        this.interval = Objects.requireNonNull(interval, "interval");
        this.outage = Objects.requireNonNull(outage, "outage");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    @Override
    public String name() {
        return "heartbeat";
    }

    @Override
    public Next step() {
        if (Boolean.FALSE.equals(available)) {
            return new Next(interval, false);
        }
        try {
            if (available == null) {
                Optional<String> reason = beats.unavailable();
                available = reason.isEmpty();
                if (!available) {
                    log.info(
                            "worker heartbeat off: {}; the console and 'status' then list every worker of the table",
                            reason.get());
                    return new Next(interval, false);
                }
            }
            WorkerHeartbeat beat = current.get();
            beats.beat(beat);
            last = beat;
            if (nextForget == null || !clock.instant().isBefore(nextForget)) {
                nextForget = clock.instant().plus(FORGET_EVERY);
                int forgotten = beats.forgetBeatenBefore(clock.instant().minus(WorkerHeartbeat.GONE_KEPT_FOR));
                if (forgotten > 0) {
                    log.info(
                            "forgot {} heartbeat(s) of workers gone for more than {}",
                            forgotten,
                            WorkerHeartbeat.GONE_KEPT_FOR.toHours() + " h");
                }
            }
            outage.succeeded();
        } catch (RuntimeException e) {
            // the relay does not need the heartbeat: one line per outage, and the next beat tries again
            outage.failed(Failures.describe(e), e);
        }
        return new Next(interval, false);
    }

    /** Removes this worker's heartbeat: it stops cleanly, so it is not shown as gone. */
    @Override
    public void finish() {
        if (last == null) {
            return;
        }
        try {
            beats.remove(last.workerId());
        } catch (RuntimeException e) {
            log.warn(
                    "could not remove this worker's heartbeat (it shows as gone, and is deleted after {} h): {}",
                    WorkerHeartbeat.GONE_KEPT_FOR.toHours(),
                    Failures.describe(e));
        }
    }
}
