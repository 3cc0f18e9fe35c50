package dev.outboxjava.testkit;

import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.PublishOutcome;
import dev.outboxjava.core.port.Publisher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wraps a real or fake {@link Publisher} and injects scripted faults, so a test can show what the
 * relay (or the code around it) does when the broker misbehaves.
 *
 * <pre>{@code
 * RecordingPublisher broker = new RecordingPublisher();
 * FaultyPublisher publisher = FaultyPublisher.wrapping(broker);
 * publisher.failNext(2, Failure.RETRYABLE);            // the next two events fail, retryably
 * publisher.failType("invoice.issued", Failure.PERMANENT);
 * publisher.acknowledgeThenFail(1);                    // broker gets it, the relay hears "failed"
 * publisher.hang();                                    // publishes never complete ...
 * publisher.releaseHung();                             // ... until released
 * publisher.heal();                                    // back to a well-behaved publisher
 * }</pre>
 *
 * <p><b>Per-event faults</b> are decided for each event of a batch, in this order: {@link #failNext}
 * (a countdown over events, not batches), then the rules of {@link #failWhen} / {@link #failType} /
 * {@link #failKeys} (they stay until {@link #heal()}), then {@link #acknowledgeThenFail} (a
 * countdown). An event that fails this way never reaches the delegate; the rest of its batch does
 * (one bad event never fails its whole batch). <b>Per-batch faults</b> ({@link #hang()},
 * {@link #respondLate}) delay the whole answer.
 *
 * <p><b>The window between acknowledgement and mark.</b> {@link #beforeMark} registers a hook that
 * runs after the delegate acknowledged a batch and before this publisher hands the outcomes back,
 * that is, before the relay can mark anything. A fault-injection harness acts there: to simulate a
 * relay that dies after the broker's ack, make the store unavailable in the hook (for example
 * {@code InMemoryOutboxStore.setAvailable(false)}); the relay's mark then fails, the events stay in
 * flight, and the sweeper returns them to pending once their lease expires.
 *
 * <p>Thread-safe. Never throws from {@link #publish}: like every publisher it reports problems as
 * failed outcomes (a delegate that throws is reported as a retryable failure for each event).
 */
public final class FaultyPublisher implements Publisher {

    private static final Logger log = LoggerFactory.getLogger(FaultyPublisher.class);

    /** Whether an injected failure tells the relay to try again later. */
    public enum Failure {
        /** Like a broker outage or a timeout: the relay schedules another attempt. */
        RETRYABLE,
        /** Like a message the broker refuses for good: the relay dead-letters the event. */
        PERMANENT;

        boolean retryable() {
            return this == RETRYABLE;
        }
    }

    private record Rule(Predicate<? super OutboxEvent> when, Failure failure, String description) {}

    private record Held(List<OutboxEvent> batch, Duration timeout, CompletableFuture<List<PublishOutcome>> answer) {}

    private final Publisher delegate;
    private final List<Rule> rules = new ArrayList<>();
    private final List<Held> held = new ArrayList<>();
    private final List<UUID> acknowledgedThenFailed = new ArrayList<>();
    private int failNextRemaining;
    private Failure failNextKind = Failure.RETRYABLE;
    private int acknowledgeThenFailRemaining;
    private boolean hanging;
    private Duration lateBy = Duration.ZERO;
    private volatile Consumer<List<OutboxEvent>> beforeMark = acknowledged -> {};

    private FaultyPublisher(Publisher delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /** A publisher that behaves exactly like {@code delegate} until a fault is scripted. */
    public static FaultyPublisher wrapping(Publisher delegate) {
        return new FaultyPublisher(delegate);
    }

    /** The wrapped publisher. */
    public Publisher delegate() {
        return delegate;
    }

    /** The next {@code count} events (counted one by one across batches) fail with {@code failure}. */
    public synchronized FaultyPublisher failNext(int count, Failure failure) {
        if (count < 0) {
            throw new IllegalArgumentException("count must not be negative, was " + count);
        }
        this.failNextRemaining = count;
        this.failNextKind = Objects.requireNonNull(failure, "failure");
        return this;
    }

    /** The next {@code count} events fail retryably; see {@link #failNext(int, Failure)}. */
    public FaultyPublisher failNext(int count) {
        return failNext(count, Failure.RETRYABLE);
    }

    /**
     * Every event matching {@code when} fails with {@code failure}, until {@link #heal()}.
     *
     * @param description what the rule matches, shown in the failure reason (e.g. {@code "tenant acme"})
     */
    public synchronized FaultyPublisher failWhen(
            Predicate<? super OutboxEvent> when, Failure failure, String description) {
        rules.add(new Rule(
                Objects.requireNonNull(when, "when"),
                Objects.requireNonNull(failure, "failure"),
                Objects.requireNonNull(description, "description")));
        return this;
    }

    /** Every event of {@code type} fails with {@code failure}, until {@link #heal()}. */
    public FaultyPublisher failType(String type, Failure failure) {
        Objects.requireNonNull(type, "type");
        return failWhen(event -> event.type().equals(type), failure, "type " + type);
    }

    /** Every event with exactly this key fails with {@code failure}, until {@link #heal()}. */
    public FaultyPublisher failKey(String key, Failure failure) {
        Objects.requireNonNull(key, "key");
        return failWhen(event -> event.key().filter(key::equals).isPresent(), failure, "key " + key);
    }

    /**
     * Every event whose key matches {@code keyMatches} fails with {@code failure}, until {@link #heal()};
     * events without a key never match.
     */
    public FaultyPublisher failKeys(Predicate<String> keyMatches, Failure failure) {
        Objects.requireNonNull(keyMatches, "keyMatches");
        return failWhen(event -> event.key().filter(keyMatches).isPresent(), failure, "key predicate");
    }

    /**
     * The next {@code count} events are published through the delegate (the broker HAS them) but
     * reported as retryable failures, as if the relay crashed between the broker's acknowledgement and
     * its mark. The relay publishes them again later: a duplicate with the same id.
     */
    public synchronized FaultyPublisher acknowledgeThenFail(int count) {
        if (count < 0) {
            throw new IllegalArgumentException("count must not be negative, was " + count);
        }
        this.acknowledgeThenFailRemaining = count;
        return this;
    }

    /**
     * Runs {@code hook} with the events the delegate acknowledged, after the acknowledgement and before
     * the outcomes are handed back (so before the relay marks them). Runs for every batch with at least
     * one acknowledged event, on the thread that completes the delegate's answer; an exception from the
     * hook completes that publish exceptionally (the relay then retries the whole batch).
     */
    public FaultyPublisher beforeMark(Consumer<List<OutboxEvent>> hook) {
        this.beforeMark = Objects.requireNonNull(hook, "hook");
        return this;
    }

    /**
     * From now on every publish hangs: its future does not complete (whatever the timeout) until
     * {@link #releaseHung()}, {@link #heal()} or {@link #close()}. Nothing reaches the delegate while
     * held. {@link #checkHealth()} reports down meanwhile.
     */
    public synchronized FaultyPublisher hang() {
        hanging = true;
        return this;
    }

    /**
     * Stops hanging and hands every held batch to the delegate, completing each held publish with the
     * delegate's outcomes (per-event faults apply as usual). A broker that was stuck and recovered.
     */
    public FaultyPublisher releaseHung() {
        List<Held> released;
        synchronized (this) {
            hanging = false;
            released = List.copyOf(held);
            held.clear();
        }
        for (Held batch : released) {
            deliver(batch.batch(), batch.timeout()).whenComplete((outcomes, error) -> {
                if (error != null) {
                    batch.answer().completeExceptionally(error);
                } else {
                    batch.answer().complete(outcomes);
                }
            });
        }
        return this;
    }

    /** How many publishes are currently held by {@link #hang()}. */
    public synchronized int hungBatchCount() {
        return held.size();
    }

    /**
     * Every publish completes {@code lateBy} after its timeout has passed, with the delegate's real
     * outcomes: the broker took the events in time but its acknowledgements come too late. The delegate
     * is called at once. {@link Duration#ZERO} restores answers on time.
     */
    public synchronized FaultyPublisher respondLate(Duration lateBy) {
        Objects.requireNonNull(lateBy, "lateBy");
        if (lateBy.isNegative()) {
            throw new IllegalArgumentException("lateBy must not be negative, was " + lateBy);
        }
        this.lateBy = lateBy;
        return this;
    }

    /**
     * Removes every scripted fault and the {@link #beforeMark} hook, and releases held publishes
     * ({@link #releaseHung()}). The ids in {@link #acknowledgedThenFailed()} stay.
     */
    public FaultyPublisher heal() {
        synchronized (this) {
            rules.clear();
            failNextRemaining = 0;
            acknowledgeThenFailRemaining = 0;
            lateBy = Duration.ZERO;
        }
        beforeMark = acknowledged -> {};
        return releaseHung();
    }

    /** Ids of the events that {@link #acknowledgeThenFail} published and then reported as failed, in order. */
    public synchronized List<UUID> acknowledgedThenFailed() {
        return List.copyOf(acknowledgedThenFailed);
    }

    @Override
    public CompletableFuture<List<PublishOutcome>> publish(List<OutboxEvent> batch, Duration timeout) {
        List<OutboxEvent> events = List.copyOf(batch);
        Duration late;
        synchronized (this) {
            if (hanging) {
                CompletableFuture<List<PublishOutcome>> answer = new CompletableFuture<>();
                held.add(new Held(events, timeout, answer));
                log.debug("holding a batch of {} event(s) (hang injected)", events.size());
                return answer;
            }
            late = lateBy;
        }
        CompletableFuture<List<PublishOutcome>> answer = deliver(events, timeout);
        if (late.isZero()) {
            return answer;
        }
        CompletableFuture<List<PublishOutcome>> lateAnswer = new CompletableFuture<>();
        long dueNanos = System.nanoTime() + timeout.plus(late).toNanos();
        answer.whenComplete((outcomes, error) -> CompletableFuture.delayedExecutor(
                        Math.max(0, dueNanos - System.nanoTime()), TimeUnit.NANOSECONDS)
                .execute(() -> {
                    if (error != null) {
                        lateAnswer.completeExceptionally(error);
                    } else {
                        lateAnswer.complete(outcomes);
                    }
                }));
        return lateAnswer;
    }

    /** Applies the per-event faults, sends the rest to the delegate and merges the outcomes. */
    private CompletableFuture<List<PublishOutcome>> deliver(List<OutboxEvent> batch, Duration timeout) {
        Map<UUID, PublishOutcome> injected = new HashMap<>();
        Set<UUID> reportAsFailed = new HashSet<>();
        List<OutboxEvent> toDelegate = new ArrayList<>();
        synchronized (this) {
            for (OutboxEvent event : batch) {
                PublishOutcome failure = injectedFailure(event);
                if (failure != null) {
                    injected.put(event.id(), failure);
                    continue;
                }
                if (acknowledgeThenFailRemaining > 0) {
                    acknowledgeThenFailRemaining--;
                    reportAsFailed.add(event.id());
                }
                toDelegate.add(event);
            }
        }
        CompletableFuture<List<PublishOutcome>> delegated =
                toDelegate.isEmpty() ? CompletableFuture.completedFuture(List.of()) : callDelegate(toDelegate, timeout);
        return delegated.thenApply(outcomes -> merge(batch, toDelegate, injected, reportAsFailed, outcomes));
    }

    private PublishOutcome injectedFailure(OutboxEvent event) {
        if (failNextRemaining > 0) {
            failNextRemaining--;
            return PublishOutcome.failed(
                    event.id(),
                    "injected failure (FaultyPublisher.failNext, "
                            + failNextKind.name().toLowerCase(java.util.Locale.ROOT) + ")",
                    failNextKind.retryable());
        }
        for (Rule rule : rules) {
            if (rule.when().test(event)) {
                return PublishOutcome.failed(
                        event.id(),
                        "injected failure (FaultyPublisher rule: " + rule.description() + ")",
                        rule.failure().retryable());
            }
        }
        return null;
    }

    private CompletableFuture<List<PublishOutcome>> callDelegate(List<OutboxEvent> events, Duration timeout) {
        try {
            return delegate.publish(events, timeout);
        } catch (RuntimeException e) {
            log.warn(
                    "delegate publisher threw instead of reporting failed outcomes; treating the batch as "
                            + "retryable failures",
                    e);
            return CompletableFuture.completedFuture(events.stream()
                    .map(event -> PublishOutcome.failed(event.id(), "delegate threw: " + e, true))
                    .toList());
        }
    }

    private List<PublishOutcome> merge(
            List<OutboxEvent> batch,
            List<OutboxEvent> delegated,
            Map<UUID, PublishOutcome> injected,
            Set<UUID> reportAsFailed,
            List<PublishOutcome> fromDelegate) {
        Map<UUID, PublishOutcome> byId = new HashMap<>(injected);
        fromDelegate.forEach(outcome -> byId.put(outcome.eventId(), outcome));
        List<OutboxEvent> acknowledged = delegated.stream()
                .filter(event -> byId.get(event.id()) instanceof PublishOutcome.Published)
                .toList();
        if (!acknowledged.isEmpty()) {
            beforeMark.accept(acknowledged);
        }
        List<PublishOutcome> outcomes = new ArrayList<>(batch.size());
        for (OutboxEvent event : batch) {
            PublishOutcome outcome = byId.get(event.id());
            if (outcome == null) {
                outcome = PublishOutcome.failed(event.id(), "delegate publisher reported no outcome", true);
            } else if (outcome instanceof PublishOutcome.Published && reportAsFailed.contains(event.id())) {
                synchronized (this) {
                    acknowledgedThenFailed.add(event.id());
                }
                outcome = PublishOutcome.failed(
                        event.id(),
                        "injected failure after the broker acknowledged the "
                                + "event (FaultyPublisher.acknowledgeThenFail: a crash between publish and mark)",
                        true);
            }
            outcomes.add(outcome);
        }
        return outcomes;
    }

    /** Down while hanging; otherwise the delegate's health. */
    @Override
    public HealthCheck checkHealth() {
        synchronized (this) {
            if (hanging) {
                return HealthCheck.down("publisher hangs (fault injected by FaultyPublisher)");
            }
        }
        return delegate.checkHealth();
    }

    /** Completes held publishes as retryable failures, then closes the delegate. */
    @Override
    public void close() {
        List<Held> abandoned;
        synchronized (this) {
            hanging = false;
            abandoned = List.copyOf(held);
            held.clear();
        }
        for (Held batch : abandoned) {
            batch.answer()
                    .complete(batch.batch().stream()
                            .map(event -> PublishOutcome.failed(
                                    event.id(),
                                    "publisher closed while the publish was held (FaultyPublisher.hang)",
                                    true))
                            .toList());
        }
        delegate.close();
    }

    @Override
    public synchronized String toString() {
        return "FaultyPublisher[delegate=" + delegate + ", failNext=" + failNextRemaining + ", rules=" + rules.size()
                + ", acknowledgeThenFail=" + acknowledgeThenFailRemaining + ", hanging=" + hanging + ", lateBy="
                + lateBy + "]";
    }
}
