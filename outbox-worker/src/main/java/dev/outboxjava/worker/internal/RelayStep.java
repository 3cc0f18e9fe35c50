package dev.outboxjava.worker.internal;

import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.core.relay.Relay;
import dev.outboxjava.core.relay.RelayResult;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * One relay thread's step: a tick, then at once again while batches come back full, else idle
 * until the poll interval or a wake-up.
 *
 * <p>Pipelined while draining: when a batch comes back full, the step leaves it being published and
 * returns; the next step leases the next batch first and then completes (awaits and marks) the
 * previous one, so the database works on batch N's marks and batch N+1's lease while the broker
 * acknowledges N+1. A batch that is not full is completed in the same step (no added latency), and
 * {@link #finish()} completes whatever is still in flight when the loop stops. A short batch leased
 * while batch N was in flight is followed by another lease at once rather than an idle wait: under
 * per-key ordering, N's keys held their later events back until N was completed. After that, short
 * leases of a drain wait {@link #FIRST_DRAIN_WAIT}, then twice as long each time, before the loop falls
 * back to the poll interval: other relays' batches may be holding the keys of what is left.
 *
 * <p>With a {@link CompletionThread} the previous batch's completion runs beside the next lease rather
 * than after it: its marks and the lease then use two database sessions at once.
 *
 * <p>Pipelined at steady rates too: a short batch the broker has not acknowledged yet is left in
 * flight while the loop waits for whichever comes first, the acknowledgements or a wake-up. On the
 * acknowledgements the next step completes the batch; on a wake-up it leases the next batch first, as
 * when draining, so an event committed while the broker works on the previous batch is not held
 * back by that batch's acknowledgements.
 *
 * <p>Outages: a store failure backs off; a tick in which the broker took nothing and the
 * publisher's health check says it is down counts as a broker outage: the loop backs off and,
 * while the broker stays down, only probes its health instead of leasing (so an outage does not
 * spend every event's attempts). Each is logged once by its shared {@link OutageTracker}. While
 * backing off from either outage the loop probes that dependency's health check every probe
 * interval and resumes as soon as it answers again.
 */
public final class RelayStep implements LoopStep {

    private final String name;
    private final Relay relay;
    private final Publisher publisher;
    private final LeaseTrackingStore leases;
    private final Duration pollInterval;
    private final Backoff backoff;
    private final OutageTracker storeOutage;
    private final OutageTracker brokerOutage;
    private final OutageTracker bug;
    private int consecutiveFailures;
    private boolean brokerDown;
    /** Whether the last failure was the database's (its backoff then probes the database). */
    private boolean storeFailed;
    /**
     * The first wait after a short lease that follows a full one. While draining, a lease comes back short
     * also when other relays' batches in flight hold the keys of what is left (per-key ordering); they
     * are completed within moments, so the loop looks again soon rather than after a whole poll interval.
     */
    static final Duration FIRST_DRAIN_WAIT = Duration.ofMillis(10);

    /** The next short wait, doubled after each short lease until it reaches the poll interval; null when not draining. */
    private Duration drainWait;

    /** A batch handed to the publisher and not completed yet. */
    private Relay.Batch inFlight;

    /** Whether the loop waits for the short batch in flight to be acknowledged (or for a wake-up, if sooner). */
    private boolean awaitingAcknowledgements;

    /** Whether the wait for that batch's acknowledgements ended with a wake-up, which asks for a lease first. */
    private boolean wokenWhileAwaiting;

    /** Whether the short batch in flight was leased while another batch was in flight (see {@link #next}). */
    private boolean inFlightLeasedBesideAnother;

    private final MissedWakeUps missedWakeUps;
    private final Clock clock;
    private final BatchCompleter completer;
    /**
     * The store's {@link OutageTracker#outagesEnded()} when this step began: a lease under way when the marks
     * beside it end an outage fails as part of that outage, not as a new one.
     */
    private long outagesEndedBefore;

    /** When the last idle wait began; null while draining. */
    private Instant idleSince;
    /** Whether the last idle wait ran its full interval (no wake-up came). */
    private boolean polled;

    public RelayStep(
            String name,
            Relay relay,
            Publisher publisher,
            LeaseTrackingStore leases,
            Duration pollInterval,
            Backoff backoff,
            OutageTracker storeOutage,
            OutageTracker brokerOutage,
            OutageTracker bug) {
        this(
                name,
                relay,
                publisher,
                leases,
                pollInterval,
                backoff,
                storeOutage,
                brokerOutage,
                bug,
                MissedWakeUps.none(),
                Clock.systemUTC(),
                BatchCompleter.ON_RELAY_THREAD);
    }

    /**
     * @param missedWakeUps told when a poll finds events appended during the wait, which the expected
     *                      wake-up should have announced
     * @param clock         the clock the events' creation times are compared with
     * @param completer     where the batch left in flight is completed while the next one is leased
     */
    public RelayStep(
            String name,
            Relay relay,
            Publisher publisher,
            LeaseTrackingStore leases,
            Duration pollInterval,
            Backoff backoff,
            OutageTracker storeOutage,
            OutageTracker brokerOutage,
            OutageTracker bug,
            MissedWakeUps missedWakeUps,
            Clock clock,
            BatchCompleter completer) {
        this.completer = Objects.requireNonNull(completer, "completer");
        this.missedWakeUps = Objects.requireNonNull(missedWakeUps, "missedWakeUps");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.name = Objects.requireNonNull(name, "name");
        this.relay = Objects.requireNonNull(relay, "relay");
        this.publisher = Objects.requireNonNull(publisher, "publisher");
        this.leases = Objects.requireNonNull(leases, "leases");
        this.pollInterval = Objects.requireNonNull(pollInterval, "pollInterval");
        this.backoff = Objects.requireNonNull(backoff, "backoff");
        this.storeOutage = Objects.requireNonNull(storeOutage, "storeOutage");
        this.brokerOutage = Objects.requireNonNull(brokerOutage, "brokerOutage");
        this.bug = Objects.requireNonNull(bug, "bug");
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Next step() {
        outagesEndedBefore = storeOutage.outagesEnded();
        if (brokerDown) {
            HealthCheck health = brokerHealth();
            if (!health.healthy()) {
                brokerOutage.failed(health.detail(), null);
                brokerOutage.probed(health);
                return brokerPause();
            }
        }
        if (awaitingAcknowledgements) {
            awaitingAcknowledgements = false;
            if (!wokenWhileAwaiting) {
                boolean besideAnother = inFlightLeasedBesideAnother;
                return completeInFlight()
                        .map(result -> next(result, besideAnother))
                        .orElseGet(this::pause);
            }
        }
        Relay.Batch leased;
        Instant waitBegan = idleSince;
        boolean afterPoll = polled;
        idleSince = null;
        polled = false;
        Completing completing = beginInFlight();
        try {
            leased = relay.leaseAndPublish();
        } catch (Throwable failure) {
            Failures.rethrowFatal(failure);
            // The previous batch's marks may have committed before the lease failed: settled after the
            // failure, their success would end the outage the failure has just begun. Settled first, a
            // success that ends an outage leaves the lease's failure to that outage (outagesEndedBefore).
            settle(completing);
            failed(failure);
            return pause();
        }
        if (afterPoll && waitBegan != null) {
            missedWakeUps.polled(appendedSince(leased, waitBegan));
        }
        boolean hadInFlight = completing != null;
        Optional<RelayResult> previous = settle(completing);
        if (hadInFlight && previous.isEmpty()) {
            complete(leased); // the store failed marking the previous batch: no pipelining
            return pause();
        }
        if (hadInFlight && brokerWentDown(previous.get())) {
            complete(leased); // the broker is down: no pipelining
            return brokerPause();
        }
        if (leased.size() >= relay.settings().batchSize()) {
            inFlight = leased; // completed by the next step, after it has leased again
            return draining();
        }
        if (!leased.isReported()) {
            // completed by the next step: at once on the acknowledgements, after a lease on a wake-up
            inFlight = leased;
            inFlightLeasedBesideAnother = hadInFlight;
            awaitingAcknowledgements = true;
            wokenWhileAwaiting = false;
            return Next.untilDone(leased.reported(), pollInterval);
        }
        return complete(leased).map(result -> next(result, hadInFlight)).orElseGet(this::pause);
    }

    @Override
    public void waited(boolean woken) {
        if (awaitingAcknowledgements) {
            wokenWhileAwaiting = woken; // not a poll: the wait was for the broker
        } else {
            polled = !woken;
        }
        if (woken) {
            missedWakeUps.woken();
        }
    }

    /** Events of the batch appended after {@code since} for their first attempt: a wake-up should have announced them. */
    private static int appendedSince(Relay.Batch batch, Instant since) {
        int count = 0;
        for (OutboxEvent event : batch.events()) {
            if (event.attempts() == 0 && event.createdAt().isAfter(since)) {
                count++;
            }
        }
        return count;
    }

    /** Completes the batch left in flight when the loop stops. */
    @Override
    public void finish() {
        outagesEndedBefore = storeOutage.outagesEnded();
        awaitingAcknowledgements = false;
        completeInFlight();
        completer.close();
    }

    private Optional<RelayResult> completeInFlight() {
        Relay.Batch batch = inFlight;
        inFlight = null;
        return batch == null ? Optional.empty() : complete(batch);
    }

    /** The batch left in flight, its completion begun with the completer (the next lease runs meanwhile); null if none. */
    private Completing beginInFlight() {
        Relay.Batch batch = inFlight;
        inFlight = null;
        return batch == null ? null : new Completing(batch, completer.begin(() -> relay.complete(batch)));
    }

    /** Awaits and marks one batch on this thread; empty when the store failed (logged, events stay in flight for the sweeper). */
    private Optional<RelayResult> complete(Relay.Batch batch) {
        return settle(new Completing(batch, () -> relay.complete(batch)));
    }

    /**
     * Takes a completion's result, on this thread: the outage trackers and counters are this thread's
     * alone. Empty when there was none, or when the store failed (logged, events stay in flight for the
     * sweeper).
     */
    private Optional<RelayResult> settle(Completing completing) {
        if (completing == null) {
            return Optional.empty();
        }
        Relay.Batch batch = completing.batch();
        try {
            RelayResult result = completing.result().get();
            storeOutage.succeeded();
            bug.succeeded();
            consecutiveFailures = 0;
            storeFailed = false;
            return Optional.of(result);
        } catch (Throwable failure) {
            Failures.rethrowFatal(failure);
            failed(failure);
            return Optional.empty();
        } finally {
            leases.ended(batch.leaseId());
        }
    }

    /** A batch and its completion under way. */
    private record Completing(Relay.Batch batch, Supplier<RelayResult> result) {}

    /**
     * @param afterBatchInFlight whether the batch was leased while the previous one was in flight: that
     *                           one's keys held their later events back (per-key ordering), and now that it
     *                           is completed they may be due, so a short batch then leases again at once
     */
    private Next next(RelayResult result, boolean afterBatchInFlight) {
        if (brokerWentDown(result)) {
            return brokerPause();
        }
        if (result.leased() >= relay.settings().batchSize() || afterBatchInFlight) {
            return draining();
        }
        if (drainWait != null && drainWait.compareTo(pollInterval) < 0) {
            // not a poll: a wait this short says nothing about missed wake-ups (idleSince stays unset)
            Duration wait = drainWait;
            drainWait = drainWait.multipliedBy(2);
            return Next.idle(wait);
        }
        drainWait = null;
        idleSince = clock.instant();
        return Next.idle(pollInterval);
    }

    private Next draining() {
        drainWait = FIRST_DRAIN_WAIT;
        return Next.MORE_WORK;
    }

    /** Whether this result shows a broker outage (it took nothing and its health check fails); tracks recovery. */
    private boolean brokerWentDown(RelayResult result) {
        if (result.leased() > 0 && result.published() == 0 && result.retried() > 0) {
            HealthCheck health = brokerHealth();
            if (!health.healthy()) {
                brokerDown = true;
                brokerOutage.failed(
                        result.retried() + " of " + result.leased() + " events failed and the broker "
                                + "health check says: " + health.detail(),
                        null);
                brokerOutage.probed(health);
                return true;
            }
        }
        if (result.published() > 0 || result.leased() == 0 || brokerDown) {
            brokerDown = false;
            brokerOutage.succeeded();
        }
        return false;
    }

    private void failed(Throwable failure) {
        storeFailed = Failures.report(name, failure, storeOutage, bug, outagesEndedBefore);
    }

    /** Backs off after a failure; after the database's, probing it so the loop resumes once it answers. */
    private Next pause() {
        consecutiveFailures++;
        Duration delay = backoff.delayAfter(consecutiveFailures);
        return storeFailed
                ? Next.backoff(delay, backoff.probeInterval(), storeOutage.recoveryProbe(leases::checkHealth))
                : Next.backoff(delay);
    }

    /** Backs off from a broker outage, probing the broker so the loop resumes once it answers. */
    private Next brokerPause() {
        consecutiveFailures++;
        return Next.backoff(
                backoff.delayAfter(consecutiveFailures),
                backoff.probeInterval(),
                brokerOutage.recoveryProbe(this::brokerHealth));
    }

    private HealthCheck brokerHealth() {
        try {
            return publisher.checkHealth();
        } catch (Throwable failure) {
            Failures.rethrowFatal(failure);
            return HealthCheck.down("health check threw " + failure);
        }
    }
}
