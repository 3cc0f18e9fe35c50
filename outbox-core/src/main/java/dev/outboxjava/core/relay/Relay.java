package dev.outboxjava.core.relay;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.OutboxStoreException;
import dev.outboxjava.core.RetryDecision;
import dev.outboxjava.core.RetryPolicy;
import dev.outboxjava.core.port.DeadLetterMark;
import dev.outboxjava.core.port.KeyHoldBack;
import dev.outboxjava.core.port.MarkResult;
import dev.outboxjava.core.port.OutboxStore;
import dev.outboxjava.core.port.PublishOutcome;
import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.core.port.RetryMark;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * One relay tick: lease a batch, publish it, mark each event by its outcome.
 *
 * <p>No transaction is open while the broker works: the lease commits before the publish and the
 * marks are separate statements afterwards. If the process dies in between, the events stay
 * in flight until the sweeper returns them and they are published again (at least once; the
 * duplicate carries the same id).
 *
 * <p>Has no thread of its own; a loop (the worker) calls {@link #runOnce()}. Thread-safe: several
 * threads may run ticks on one instance, each with its own lease.
 *
 * <p>A tick can also run in two halves, so that a loop keeps the database busy while the broker
 * works: {@link #leaseAndPublish()} leases a batch and hands it to the publisher without waiting,
 * {@link #complete(Batch)} awaits the acknowledgements and marks. A loop may lease the next batch
 * before completing the previous: the marks of batch N then run while batch N+1 is being published. Per-key order is unaffected: a lease never takes an event whose key has an
 * event in flight, and the outcomes of a batch are marked before its events could be leased again.
 *
 * <p>A mark that the store fails (a database blip) is tried again under the same lease, with backoff,
 * for up to {@link RelayConfig#markRetryTimeout()}: the batch's events were published, and giving
 * the mark up would have them published again once their lease expires.
 *
 * <p>On shutdown, {@link #abandonInFlight()} ends every wait: batches still awaiting the broker go
 * back to pending untried (no attempt spent) instead of waiting out the publish timeout.
 */
public final class Relay {

    private static final Logger log = LoggerFactory.getLogger(Relay.class);
    /** Extra wait past the publish timeout for a publisher that fails to honour it. */
    private static final Duration PUBLISHER_GRACE = Duration.ofSeconds(5);
    /** First pause before a failed mark is tried again; each further pause doubles, up to the maximum. */
    private static final Duration MARK_RETRY_FIRST_PAUSE = Duration.ofMillis(100);

    private static final Duration MARK_RETRY_MAX_PAUSE = Duration.ofSeconds(2);

    private final OutboxStore store;
    private final Publisher publisher;
    private final RelayConfig settings;
    private final RetryPolicy retryPolicy;
    private final Clock clock;
    private final RelayListener listener;
    /** Completed by {@link #abandonInFlight()}: every wait of this relay ends. */
    private final CompletableFuture<Void> abandoned = new CompletableFuture<>();

    private final UnroutableWarnings unroutable;

    public Relay(
            OutboxStore store,
            Publisher publisher,
            RelayConfig settings,
            RetryPolicy retryPolicy,
            Clock clock,
            RelayListener listener) {
        this.store = Objects.requireNonNull(store, "store");
        this.publisher = Objects.requireNonNull(publisher, "publisher");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.retryPolicy = Objects.requireNonNull(retryPolicy, "retryPolicy");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.listener = Objects.requireNonNull(listener, "listener");
        this.unroutable = new UnroutableWarnings(clock, retryPolicy);
    }

    public RelayConfig settings() {
        return settings;
    }

    /**
     * Stops waiting, for good: a batch awaiting its acknowledgements now or later goes back to pending
     * untried (released under its lease, no attempt spent) instead of waiting out the publish timeout;
     * a failed mark is not retried any more; {@link #leaseAndPublish()} leases nothing. Marks this relay
     * makes afterwards that find their lease taken are not reported as lost: the relay gave those
     * events up itself (the worker may release them from another thread at the same time).
     *
     * <p>For a shutdown whose time is up. An event the broker received but did not acknowledge in time
     * is published again by the next relay (at least once; the duplicate has the same id).
     */
    public void abandonInFlight() {
        abandoned.complete(null);
    }

    /** Whether {@link #abandonInFlight()} was called. */
    public boolean isAbandoned() {
        return abandoned.isDone();
    }

    /**
     * Runs one tick.
     *
     * @return what was done; {@link RelayResult#leased()} equal to the batch size means more may be waiting
     * @throws dev.outboxjava.core.OutboxStoreException when the store fails (the loop backs off; a failed
     *         mark is first retried, see {@link #complete(Batch)}); leased events are then reclaimed by the
     *         sweeper
     */
    public RelayResult runOnce() {
        return complete(leaseAndPublish());
    }

    /**
     * The first half of a tick: leases a batch and hands it to the publisher without awaiting the
     * acknowledgements. Pass the result to {@link #complete(Batch)} — always, also when the batch is
     * empty — on the same thread or another.
     *
     * @throws dev.outboxjava.core.OutboxStoreException when the lease fails (nothing was leased)
     */
    public Batch leaseAndPublish() {
        long started = System.nanoTime();
        UUID leaseId = UUID.randomUUID();
        if (isAbandoned()) {
            return new Batch(leaseId, List.of(), null, started);
        }
        List<OutboxEvent> events = store.lease(leaseId, settings.batchSize(), clock.instant());
        if (events.isEmpty()) {
            return new Batch(leaseId, events, null, started);
        }
        CompletableFuture<List<PublishOutcome>> publishing;
        try {
            publishing = publisher.publish(events, settings.publishTimeout());
            if (publishing == null) {
                throw new IllegalStateException("publish returned null instead of a future");
            }
        } catch (RuntimeException e) {
            // A publisher that breaks its contract (throws, or returns null) must not leave the batch
            // leased with no attempt counted: it would be retried forever and never dead-lettered.
            publishing = CompletableFuture.failedFuture(new ContractBreach(e));
        }
        return new Batch(leaseId, events, publishing, started);
    }

    /**
     * The second half of a tick: awaits the batch's acknowledgements (up to the publish timeout from
     * when it was handed over) and marks every event by its outcome.
     *
     * @return what the tick did
     * @throws dev.outboxjava.core.OutboxStoreException when a mark still fails after
     *         {@link RelayConfig#markRetryTimeout()} (or once the relay is abandoned); the events stay
     *         in flight until the sweeper returns them
     */
    public RelayResult complete(Batch batch) {
        Objects.requireNonNull(batch, "batch");
        if (batch.isEmpty()) {
            RelayResult idle = RelayResult.idle(Duration.ofNanos(System.nanoTime() - batch.startedNanos));
            listener.onTick(idle);
            return idle;
        }
        long started = batch.startedNanos;
        UUID leaseId = batch.leaseId;
        List<OutboxEvent> events = batch.events;
        Map<UUID, PublishOutcome> outcomes = awaitOutcomes(batch);
        if (outcomes == null) {
            return releaseAbandoned(batch);
        }
        Instant now = clock.instant();
        Sorted sorted = sort(events, outcomes, now);

        MarkRetry retry = new MarkRetry(leaseId);
        MarkResult published = sorted.published.isEmpty()
                ? MarkResult.empty()
                : retry.mark(
                        "published",
                        sorted.published.size(),
                        () -> store.markPublished(leaseId, sorted.published, now));
        MarkResult retried = sorted.retries.isEmpty()
                ? MarkResult.empty()
                : retry.mark("for retry", sorted.retries.size(), () -> store.markRetry(leaseId, sorted.retries, now));
        MarkResult dead = sorted.deadLetters.isEmpty()
                ? MarkResult.empty()
                : retry.mark(
                        "dead-lettered",
                        sorted.deadLetters.size(),
                        () -> store.markDeadLettered(leaseId, sorted.deadLetters, now));
        MarkResult released = sorted.released.isEmpty()
                ? MarkResult.empty()
                : retry.mark("released", sorted.released.size(), () -> store.release(leaseId, sorted.released, now));

        // After abandonInFlight the worker may have released this lease itself: a refused mark is then no news.
        boolean gaveUp = isAbandoned();
        int leaseLost = 0;
        for (OutboxEvent event : events) {
            UUID id = event.id();
            if (published.leaseLost().contains(id)
                    || retried.leaseLost().contains(id)
                    || dead.leaseLost().contains(id)
                    || released.leaseLost().contains(id)) {
                if (gaveUp) {
                    withMdc(
                            event,
                            "released",
                            () -> log.debug(
                                    "event {} was released on shutdown before its mark " + "arrived; it goes out again",
                                    id));
                    continue;
                }
                leaseLost++;
                withMdc(
                        event,
                        "lease_lost",
                        () -> log.warn(
                                "lease lost for event {}: another relay owns it now, so this "
                                        + "relay's outcome was dropped (is relay.publishTimeout close to sweeper.leaseTimeout, or are "
                                        + "relay clocks skewed?)",
                                id));
                listener.onLeaseLost(event);
            } else if (published.marked().contains(id)) {
                listener.onPublished(event, now);
            } else if (retried.marked().contains(id)) {
                PublishOutcome.Failed failed = (PublishOutcome.Failed) outcomes.get(id);
                failed(event, failed);
                Instant next = sorted.retryTimes.get(id);
                withMdc(
                        event,
                        "retry_scheduled",
                        () -> log.debug(
                                "event {} failed (attempt {}/{}), retry at {}: {}",
                                id,
                                event.attempts() + 1,
                                event.maxAttempts(),
                                next,
                                failed.reason()));
                listener.onRetryScheduled(event, failed.reason(), next);
            } else if (dead.marked().contains(id)) {
                PublishOutcome.Failed failed = (PublishOutcome.Failed) outcomes.get(id);
                failed(event, failed);
                withMdc(
                        event,
                        "dead_lettered",
                        () -> log.warn(
                                "event {} dead-lettered after {} attempt(s){}: {}",
                                id,
                                event.attempts() + 1,
                                failed.unroutable()
                                        ? " (destination unroutable; budget " + UnroutableWarnings.SETTING + "="
                                                + retryPolicy.unroutableMaxAttempts() + ")"
                                        : failed.retryable() ? "" : " (not retryable)",
                                failed.reason()));
                listener.onDeadLettered(event, failed.reason(), failed.retryable());
            } else if (released.marked().contains(id)) {
                listener.onReleased(event);
            }
        }
        RelayResult result = new RelayResult(
                events.size(),
                published.marked().size(),
                retried.marked().size(),
                dead.marked().size(),
                released.marked().size(),
                leaseLost,
                Duration.ofNanos(System.nanoTime() - started));
        listener.onTick(result);
        return result;
    }

    private void failed(OutboxEvent event, PublishOutcome.Failed failure) {
        if (failure.unroutable()) {
            unroutable.failed(event, failure);
        }
        listener.onFailed(event, failure);
    }

    /**
     * Returns the batch's abandoned events to pending untried: the relay stopped waiting for the broker
     * (shutdown), so no attempt is spent and nothing is reported as a failure.
     */
    private RelayResult releaseAbandoned(Batch batch) {
        List<UUID> ids = batch.events.stream().map(OutboxEvent::id).toList();
        MarkResult released = store.release(batch.leaseId, ids, clock.instant());
        for (OutboxEvent event : batch.events) {
            if (released.marked().contains(event.id())) {
                listener.onReleased(event);
            }
        }
        if (!released.marked().isEmpty()) {
            log.info(
                    "released {} event(s) of lease {} back to pending untried: the relay stopped waiting for the "
                            + "broker's acknowledgement on shutdown (the next relay publishes them, possibly a second time)",
                    released.marked().size(),
                    batch.leaseId);
        }
        RelayResult result = new RelayResult(
                batch.events.size(),
                0,
                0,
                0,
                released.marked().size(),
                0,
                Duration.ofNanos(System.nanoTime() - batch.startedNanos));
        listener.onTick(result);
        return result;
    }

    /**
     * Awaits the publisher; anything it did not report on becomes a retryable failure.
     *
     * @return the outcomes by event id, or null when the relay was abandoned (or interrupted) first
     */
    private Map<UUID, PublishOutcome> awaitOutcomes(Batch batch) {
        List<OutboxEvent> events = batch.events;
        Map<UUID, PublishOutcome> byId = new HashMap<>();
        String missingReason = "publisher reported no outcome";
        long waitNanos = batch.publishedNanos
                + settings.publishTimeout().plus(PUBLISHER_GRACE).toNanos()
                - System.nanoTime();
        try {
            // wakes early when the relay is abandoned; a failed publish surfaces in the get below
            CompletableFuture.anyOf(batch.publishing, abandoned)
                    .exceptionally(failure -> null)
                    .get(Math.max(0, waitNanos), TimeUnit.NANOSECONDS);
            if (!batch.publishing.isDone()) {
                return null;
            }
            List<PublishOutcome> outcomes = batch.publishing.get();
            for (PublishOutcome outcome : outcomes == null ? List.<PublishOutcome>of() : outcomes) {
                if (outcome != null) {
                    byId.put(outcome.eventId(), outcome);
                }
            }
        } catch (TimeoutException e) {
            missingReason = "publish not acknowledged within " + settings.publishTimeout();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            if (cause instanceof ContractBreach breach) {
                missingReason = "publisher failed: " + breach.getCause();
                log.warn(
                        "publisher threw on a batch of {} events instead of reporting outcomes; they will be retried",
                        events.size(),
                        breach.getCause());
            } else {
                missingReason = "publisher failed: " + cause;
                log.warn("publisher failed a whole batch of {} events; they will be retried", events.size(), cause);
            }
        } catch (InterruptedException e) {
            // only a shutdown interrupts a relay thread: give the batch up like an abandoned one
            Thread.currentThread().interrupt();
            return null;
        }
        for (OutboxEvent event : events) {
            byId.putIfAbsent(event.id(), PublishOutcome.failed(event.id(), missingReason, true));
        }
        return byId;
    }

    /**
     * Decides each event's mark. With per-key ordering the {@link KeyHoldBack} rule applies: only the
     * acknowledged run of a key before its first failure counts as sent; the failure is retried or
     * dead-lettered, and every later event of that key goes back to pending untried (whatever its own
     * outcome), so the key resumes in order. An event the publisher held back was never tried, so it
     * goes back untried under any ordering.
     */
    private Sorted sort(List<OutboxEvent> batch, Map<UUID, PublishOutcome> outcomes, Instant now) {
        Sorted sorted = new Sorted();
        List<PublishOutcome> decided = settings.ordering().isPerKey()
                ? KeyHoldBack.apply(batch, outcomes)
                : batch.stream().map(event -> outcomes.get(event.id())).toList();
        for (int i = 0; i < batch.size(); i++) {
            OutboxEvent event = batch.get(i);
            PublishOutcome outcome = decided.get(i);
            if (outcome instanceof PublishOutcome.Failed failed && failed.heldBack()) {
                sorted.released.add(event.id());
            } else if (outcome instanceof PublishOutcome.Failed failed) {
                RetryDecision decision = retryPolicy.decide(event, failed.retryable(), failed.unroutable(), now);
                if (decision.isDeadLetter()) {
                    sorted.deadLetters.add(
                            new DeadLetterMark(event.id(), failed.reason(), decision.deadLetterReason()));
                } else {
                    Instant next = decision.nextAttemptAt().orElseThrow();
                    sorted.retries.add(new RetryMark(event.id(), failed.reason(), next));
                    sorted.retryTimes.put(event.id(), next);
                }
            } else {
                sorted.published.add(event.id());
            }
        }
        return sorted;
    }

    /**
     * Runs {@code action} (a log statement about one event) with the event in the MDC: {@code event_id},
     * {@code event_type}, {@code key}, {@code attempt} (the attempt this tick made, 1-based) and
     * {@code outcome} (published, retry_scheduled, dead_lettered, released, lease_lost, unroutable).
     */
    static void withMdc(OutboxEvent event, String outcome, Runnable action) {
        try (MDC.MDCCloseable id = MDC.putCloseable("event_id", event.id().toString());
                MDC.MDCCloseable type = MDC.putCloseable("event_type", event.type());
                MDC.MDCCloseable key = MDC.putCloseable("key", event.keyOrEmpty());
                MDC.MDCCloseable attempt = MDC.putCloseable("attempt", Integer.toString(event.attempts() + 1));
                MDC.MDCCloseable result = MDC.putCloseable("outcome", outcome)) {
            action.run();
        }
    }

    /**
     * A leased batch and its publish under way: what {@link #leaseAndPublish()} returns and
     * {@link #complete(Batch)} finishes.
     */
    public static final class Batch {
        private final UUID leaseId;
        private final List<OutboxEvent> events;
        private final CompletableFuture<List<PublishOutcome>> publishing;
        private final long startedNanos;
        private final long publishedNanos;

        private Batch(
                UUID leaseId,
                List<OutboxEvent> events,
                CompletableFuture<List<PublishOutcome>> publishing,
                long startedNanos) {
            this.leaseId = leaseId;
            this.events = List.copyOf(events);
            this.publishing = publishing;
            this.startedNanos = startedNanos;
            this.publishedNanos = System.nanoTime();
        }

        /** The lease the batch's events are held under. */
        public UUID leaseId() {
            return leaseId;
        }

        /** The events leased, as the lease returned them. */
        public List<OutboxEvent> events() {
            return events;
        }

        /** Events leased. */
        public int size() {
            return events.size();
        }

        /** Whether the lease found nothing due. */
        public boolean isEmpty() {
            return events.isEmpty();
        }

        /**
         * Whether the publisher has reported on the batch (or failed), so that {@link Relay#complete(Batch)}
         * will not wait for the broker; true for an empty batch.
         */
        public boolean isReported() {
            return publishing == null || publishing.isDone();
        }

        /**
         * Completes once the publisher has reported on the batch or failed (at once for an empty batch): a
         * loop can wait for it and for other work at the same time, then {@link Relay#complete(Batch)}.
         */
        public CompletionStage<Void> reported() {
            return publishing == null
                    ? CompletableFuture.completedFuture(null)
                    : publishing.handle((outcomes, failure) -> null);
        }
    }

    /** Marks a publisher that threw (or returned null) instead of returning a future. */
    private static final class ContractBreach extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ContractBreach(RuntimeException cause) {
            super(cause);
        }
    }

    /**
     * Runs the mark statements of one batch, trying a statement that the store failed again under the
     * same lease while the batch's retry time lasts ({@link RelayConfig#markRetryTimeout()}, counted
     * from the first failure). Fencing keeps a repeated statement harmless: one whose first try did
     * commit before its answer was lost finds its events already changed and changes nothing; those
     * events are taken as marked, since the mark that changed them was this relay's own.
     */
    private final class MarkRetry {
        private final UUID leaseId;
        private long deadlineNanos;
        private boolean failedBefore;

        MarkRetry(UUID leaseId) {
            this.leaseId = leaseId;
        }

        MarkResult mark(String what, int count, Supplier<MarkResult> statement) {
            Duration pause = MARK_RETRY_FIRST_PAUSE;
            int attempt = 1;
            while (true) {
                try {
                    MarkResult result = statement.get();
                    if (attempt == 1) {
                        return result;
                    }
                    log.info(
                            "marking {} event(s) {} under lease {} succeeded on attempt {}{}",
                            count,
                            what,
                            leaseId,
                            attempt,
                            result.leaseLost().isEmpty()
                                    ? ""
                                    : "; " + result.leaseLost().size()
                                            + " of them were marked already by an attempt whose answer was lost");
                    Set<UUID> marked = new HashSet<>(result.marked());
                    marked.addAll(result.leaseLost());
                    return new MarkResult(marked, Set.of());
                } catch (OutboxStoreException failure) {
                    long now = System.nanoTime();
                    if (!failedBefore) {
                        failedBefore = true;
                        deadlineNanos = now + settings.markRetryTimeout().toNanos();
                    }
                    if (now + pause.toNanos() > deadlineNanos || !pauseUnlessAbandoned(pause)) {
                        if (attempt > 1) {
                            log.warn(
                                    "marking {} event(s) {} under lease {} failed {} time(s) within {}; giving up: "
                                            + "they stay in flight until the lease expires and are then published again: {}",
                                    count,
                                    what,
                                    leaseId,
                                    attempt,
                                    settings.markRetryTimeout(),
                                    failure.getMessage());
                        }
                        throw failure;
                    }
                    log.debug(
                            "marking {} event(s) {} under lease {} failed (attempt {}), trying again in {} ms: {}",
                            count,
                            what,
                            leaseId,
                            attempt,
                            pause.toMillis(),
                            failure.getMessage());
                    attempt++;
                    pause = pause.multipliedBy(2).compareTo(MARK_RETRY_MAX_PAUSE) > 0
                            ? MARK_RETRY_MAX_PAUSE
                            : pause.multipliedBy(2);
                }
            }
        }
    }

    /** Sleeps for {@code pause}; false, at once, when the relay is abandoned or the thread interrupted. */
    private boolean pauseUnlessAbandoned(Duration pause) {
        try {
            abandoned.get(pause.toNanos(), TimeUnit.NANOSECONDS);
            return false;
        } catch (TimeoutException e) {
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (ExecutionException e) {
            return false;
        }
    }

    private static final class Sorted {
        final List<UUID> published = new ArrayList<>();
        final List<RetryMark> retries = new ArrayList<>();
        final List<DeadLetterMark> deadLetters = new ArrayList<>();
        final List<UUID> released = new ArrayList<>();
        final Map<UUID, Instant> retryTimes = new HashMap<>();
    }
}
