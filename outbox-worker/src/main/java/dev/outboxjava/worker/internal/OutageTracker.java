package dev.outboxjava.worker.internal;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether one dependency (the database, the broker, or a loop's own code) is failing, shared by
 * every loop that uses it, so an outage is logged ONCE when it starts and ONCE when it ends, not
 * once per tick or per thread. Failures in between are logged at DEBUG only.
 */
public final class OutageTracker {

    private static final Logger log = LoggerFactory.getLogger("dev.outboxjava.worker.outage");

    private final String dependency;
    private final boolean unexpected;
    private final Clock clock;
    private Instant downSince;
    private long failuresSinceDown;

    /**
     * @param dependency what fails, for the log line ("database", "broker", "relay loop")
     * @param unexpected whether a failure is a bug rather than an outage (logged at ERROR with the stack trace)
     */
    public OutageTracker(String dependency, boolean unexpected, Clock clock) {
        this.dependency = Objects.requireNonNull(dependency, "dependency");
        this.unexpected = unexpected;
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * Records a failure.
     *
     * @return whether this failure started the outage (and was logged)
     */
    public synchronized boolean failed(String detail, Throwable cause) {
        failuresSinceDown++;
        if (downSince != null) {
            log.debug("{} still failing ({} failures): {}", dependency, failuresSinceDown, detail);
            return false;
        }
        downSince = clock.instant();
        failuresSinceDown = 1;
        if (unexpected) {
            log.error("{} failed unexpectedly; it backs off and keeps running: {}", dependency, detail, cause);
        } else {
            // An outage is expected operations, not a bug: one line; the stack trace only at DEBUG.
            log.warn("{} unavailable, backing off until it answers again: {}", dependency, detail);
            if (cause != null) {
                log.debug("{} outage cause", dependency, cause);
            }
        }
        return true;
    }

    /**
     * Records a success.
     *
     * @return whether this success ended an outage (and was logged)
     */
    public synchronized boolean succeeded() {
        if (downSince == null) {
            return false;
        }
        Duration downFor = Duration.between(downSince, clock.instant());
        log.info("{} {} again after {} ms and {} failed attempt(s)", dependency,
                unexpected ? "working" : "available", downFor.toMillis(), failuresSinceDown);
        downSince = null;
        failuresSinceDown = 0;
        return true;
    }

    /** Whether an outage is in progress. */
    public synchronized boolean isDown() {
        return downSince != null;
    }

    /** What is tracked. */
    public String dependency() {
        return dependency;
    }
}
