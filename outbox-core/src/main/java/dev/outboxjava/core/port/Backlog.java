package dev.outboxjava.core.port;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * The pending events at one instant, by what they wait for. {@link #eligible()} events are the work the
 * relays have to do; the others wait by design (a retry's backoff, a first attempt scheduled later, an
 * earlier event of their key that waits or was dead-lettered) and say nothing about whether the relays
 * make progress.
 *
 * <p>Under per-key ordering, a due event behind an earlier event of its key that is in flight counts as
 * eligible: it goes as soon as that one is acknowledged, so its wait is the relays' progress too.
 *
 * @param eligible            pending events due now and not held back by their key
 * @param oldestEligibleSince when the eligible event that has waited longest became due (the later of
 *                            its creation and its next attempt time); empty when none is eligible
 * @param retrying            pending events that failed and wait for their next attempt (backoff)
 * @param scheduled           pending events never tried whose first attempt is later ({@code availableAt})
 * @param held                due events held back by an earlier event of their key that waits for a
 *                            retry, is scheduled for later, or (when the ordering holds keys) was
 *                            dead-lettered (per-key ordering only)
 */
public record Backlog(long eligible, Optional<Instant> oldestEligibleSince, long retrying, long scheduled, long held) {

    /** Nothing pending. */
    public static final Backlog EMPTY = new Backlog(0, Optional.empty(), 0, 0, 0);

    public Backlog {
        Objects.requireNonNull(oldestEligibleSince, "oldestEligibleSince");
        if (eligible < 0 || retrying < 0 || scheduled < 0 || held < 0) {
            throw new IllegalArgumentException("counts must not be negative: eligible " + eligible + ", retrying "
                    + retrying + ", scheduled " + scheduled + ", held " + held);
        }
    }

    /**
     * How long the eligible event that has waited longest has been due at {@code now}: the relay's lag.
     * Zero when none is eligible.
     */
    public Duration oldestEligibleWait(Instant now) {
        return oldestEligibleSince
                .map(since -> Duration.between(since, now))
                .filter(wait -> !wait.isNegative())
                .orElse(Duration.ZERO);
    }

    /** Every pending event: eligible, retrying, scheduled and held. */
    public long pending() {
        return eligible + retrying + scheduled + held;
    }
}
