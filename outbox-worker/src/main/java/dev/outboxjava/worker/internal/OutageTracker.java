package dev.outboxjava.worker.internal;

import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.port.WorkerHeartbeat;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether one dependency (the database, the broker, or a loop's own code) is failing, shared by
 * every loop that uses it, so an outage is logged ONCE when it starts and ONCE when it ends, not
 * once per tick or per thread. Failures in between are logged at DEBUG only.
 *
 * <p>The outage's length in the log runs from when the dependency was first seen failing to when it
 * was first seen answering again — by a {@linkplain #recoveryProbe health probe} of a loop backing
 * off, or by the success that ends the outage when no probe saw it first — not to the moment a loop
 * happened to finish its backoff.
 */
public final class OutageTracker {

    private static final Logger log = LoggerFactory.getLogger("dev.outboxjava.worker.outage");

    private final String dependency;
    private final boolean unexpected;
    private final Clock clock;
    private Instant downSince;
    private long failuresSinceDown;
    /** The dependency was seen not answering at all during this outage: a passing probe then means it is back. */
    private boolean seenUnreachable;
    /** When a probe first found the dependency answering again (null while it does not). */
    private Instant seenBack;

    private Optional<WorkerHeartbeat.Failure> lastFailure = Optional.empty();
    /** This outage is the outbox table missing, and was logged as that. */
    private boolean tableMissing;
    /**
     * How many outages have ended, so a loop backing off learns that another loop got through. Written
     * under the lock, read without it by {@link #outagesEnded()} once per relay step.
     */
    private volatile long outagesEnded;

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
        return failed(detail, cause, false);
    }

    /**
     * How many outages have ended so far: read it before an operation and pass it to
     * {@link #failed(String, Throwable, long)} if the operation fails.
     */
    public long outagesEnded() {
        return outagesEnded;
    }

    /**
     * Records the failure of an operation that began when {@link #outagesEnded()} was {@code began}. When
     * an outage ended while it ran, the failure belongs to that outage (a statement under way when the
     * dependency came back, failing on a connection the outage broke): it is logged at DEBUG and starts
     * no new outage, so one outage is not logged as two; a failure of the next operation starts one.
     *
     * @return whether this failure started the outage (and was logged)
     */
    public synchronized boolean failed(String detail, Throwable cause, long began) {
        if (began != outagesEnded && downSince == null) {
            lastFailure = Optional.of(new WorkerHeartbeat.Failure(clock.instant(), dependency + ": " + detail));
            log.debug("{} failed in an operation begun before its outage ended: {}", dependency, detail, cause);
            return false;
        }
        return failed(detail, cause, false);
    }

    /**
     * Records a failure because the outbox table does not exist (dropped, or never created): the database
     * answers, so this is logged as what it is, with the detail saying how to create the table, not as the
     * database being unavailable. Logged once per outage, also when the outage began as another failure.
     *
     * @return whether this failure was logged
     */
    public synchronized boolean tableMissing(String detail, Throwable cause) {
        return failed(detail, cause, true);
    }

    private boolean failed(String detail, Throwable cause, boolean missing) {
        lastFailure = Optional.of(new WorkerHeartbeat.Failure(clock.instant(), dependency + ": " + detail));
        failuresSinceDown++;
        if (downSince != null) {
            if (missing && !tableMissing) {
                tableMissing = true;
                logTableMissing(detail, cause);
                return true;
            }
            log.debug("{} still failing ({} failures): {}", dependency, failuresSinceDown, detail);
            return false;
        }
        downSince = clock.instant();
        failuresSinceDown = 1;
        seenUnreachable = false;
        seenBack = null;
        tableMissing = missing;
        if (missing) {
            logTableMissing(detail, cause);
        } else if (unexpected) {
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

    private void logTableMissing(String detail, Throwable cause) {
        // the operator has to create the table: nothing is relayed until then
        log.error("outbox table missing; nothing is relayed until it exists, the worker keeps checking: {}", detail);
        if (cause != null) {
            log.debug("outbox table missing", cause);
        }
    }

    /**
     * Records that the dependency did not answer at all during the outage (a failed connection, not a
     * refused statement): from now on a passing health check means it is back.
     */
    public synchronized void unreachable() {
        if (downSince != null) {
            seenUnreachable = true;
            seenBack = null;
        }
    }

    /**
     * Records what a health check of the dependency said during an outage.
     *
     * @return whether the dependency, seen unreachable during this outage, answers again
     *         (a loop backing off should try again now); false when no outage is in progress
     */
    public synchronized boolean probed(HealthCheck health) {
        if (downSince == null) {
            return false;
        }
        if (!health.healthy()) {
            seenUnreachable = true;
            seenBack = null;
            log.debug("{} still down: {}", dependency, health.detail());
            return false;
        }
        if (!seenUnreachable) {
            // it answers its health check but the work failed all the same: not a return, keep backing off
            return false;
        }
        if (seenBack == null) {
            seenBack = clock.instant();
            log.debug("{} answers again: {}", dependency, health.detail());
        }
        return true;
    }

    /**
     * What a loop backing off from this outage asks, every probe interval, whether to try again now:
     * yes once another loop's success has ended the outage, or once {@code health} passes after the
     * dependency was seen unreachable during the outage ({@link #probed}, {@link #unreachable()}). A
     * check that throws counts as failing.
     */
    public BooleanSupplier recoveryProbe(Supplier<HealthCheck> health) {
        Objects.requireNonNull(health, "health");
        long outage;
        synchronized (this) {
            outage = outagesEnded;
        }
        return () -> {
            synchronized (this) {
                if (outagesEnded != outage) {
                    return true;
                }
            }
            HealthCheck result;
            try {
                result = health.get();
            } catch (RuntimeException e) {
                result = HealthCheck.down("health check threw " + e);
            }
            return probed(result);
        };
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
        Instant back = seenBack != null ? seenBack : clock.instant();
        Duration downFor = Duration.between(downSince, back);
        if (tableMissing) {
            log.info(
                    "outbox table present again after {} ms (seen failing at {}, working at {}; {} failed attempt(s))",
                    downFor.toMillis(),
                    downSince,
                    back,
                    failuresSinceDown);
        } else {
            logBack(downFor, back);
        }
        downSince = null;
        failuresSinceDown = 0;
        seenUnreachable = false;
        seenBack = null;
        tableMissing = false;
        outagesEnded++;
        return true;
    }

    private void logBack(Duration downFor, Instant back) {
        log.info(
                "{} {} again after {} ms (seen failing at {}, seen answering at {}; {} failed attempt(s))",
                dependency,
                unexpected ? "working" : "available",
                downFor.toMillis(),
                downSince,
                back,
                failuresSinceDown);
    }

    /** The last failure recorded, with when and the dependency; empty when none was. */
    public synchronized Optional<WorkerHeartbeat.Failure> lastFailure() {
        return lastFailure;
    }

    /** Whether an outage is in progress and it is the outbox table missing. */
    public synchronized boolean isTableMissing() {
        return downSince != null && tableMissing;
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
