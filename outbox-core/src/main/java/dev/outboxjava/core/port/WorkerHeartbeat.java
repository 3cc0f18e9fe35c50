package dev.outboxjava.core.port;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * What one worker of an outbox table last said about itself: who it is, how it relays, and when it last
 * leased events, failed and beat. Each worker beats every {@link #beatInterval}; one whose last beat is older
 * than {@value #GONE_AFTER_BEATS} intervals has stopped beating and is {@linkplain #isGone gone} (killed, or
 * cut off from the database). A worker that stops cleanly removes its own heartbeat.
 *
 * @param workerId     this run of the worker (a new one at every start)
 * @param process      the process, as the JVM names it ({@code pid@host})
 * @param host         the host it runs on
 * @param version      the library's version, or {@code "development build"}
 * @param relayThreads how many relay threads it runs
 * @param ordering     its ordering ({@code "per key"} or {@code "none"})
 * @param layout       the store's layout ({@code "append-only"}, {@code "in place"}, or the store's own name)
 * @param startedAt    when it started
 * @param beatAt       its last beat
 * @param beatInterval how often it beats
 * @param lastLeaseAt  when it last leased events; empty when it has not yet
 * @param lastError    the last failure it saw (database, broker or its own code), with when; empty when none
 */
public record WorkerHeartbeat(
        UUID workerId,
        String process,
        String host,
        String version,
        int relayThreads,
        String ordering,
        String layout,
        Instant startedAt,
        Instant beatAt,
        Duration beatInterval,
        Optional<Instant> lastLeaseAt,
        Optional<Failure> lastError) {

    /** How many beat intervals without a beat make a worker gone. */
    public static final int GONE_AFTER_BEATS = 3;

    /** How long a gone worker's heartbeat is kept (shown as gone) before any worker of the table deletes it. */
    public static final Duration GONE_KEPT_FOR = Duration.ofHours(24);

    /**
     * A failure a worker saw.
     *
     * @param at     when
     * @param detail what failed, and why
     */
    public record Failure(Instant at, String detail) {
        public Failure {
            Objects.requireNonNull(at, "at");
            Objects.requireNonNull(detail, "detail");
        }
    }

    public WorkerHeartbeat {
        Objects.requireNonNull(workerId, "workerId");
        Objects.requireNonNull(process, "process");
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(version, "version");
        Objects.requireNonNull(ordering, "ordering");
        Objects.requireNonNull(layout, "layout");
        Objects.requireNonNull(startedAt, "startedAt");
        Objects.requireNonNull(beatAt, "beatAt");
        Objects.requireNonNull(beatInterval, "beatInterval");
        Objects.requireNonNull(lastLeaseAt, "lastLeaseAt");
        Objects.requireNonNull(lastError, "lastError");
        if (beatInterval.isNegative() || beatInterval.isZero()) {
            throw new IllegalArgumentException("beatInterval must be positive, was " + beatInterval);
        }
    }

    /** Whether the worker has not beaten for {@value #GONE_AFTER_BEATS} beat intervals at {@code now}. */
    public boolean isGone(Instant now) {
        return beatAt.plus(beatInterval.multipliedBy(GONE_AFTER_BEATS)).isBefore(now);
    }

    /** The same heartbeat, beaten at {@code now} with what the worker knows then. */
    public WorkerHeartbeat beatenAt(Instant now, Optional<Instant> leasedAt, Optional<Failure> error) {
        return new WorkerHeartbeat(
                workerId,
                process,
                host,
                version,
                relayThreads,
                ordering,
                layout,
                startedAt,
                now,
                beatInterval,
                leasedAt,
                error);
    }
}
