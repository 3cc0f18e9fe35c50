package dev.outboxjava.testkit;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.DeadLetterFilter;
import dev.outboxjava.core.port.OperatorStore;
import dev.outboxjava.core.port.OutboxStore;
import dev.outboxjava.testkit.contract.ReceivedMessage;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;
import org.awaitility.core.ConditionTimeoutException;
import org.awaitility.core.TerminalFailureException;

/**
 * Assertions for tests of code that writes to the outbox: that an event was published, that nothing
 * was published (a rolled-back transaction), that the outbox is drained. They wait with Awaitility
 * where delivery is asynchronous, and fail with an {@link AssertionError} that lists what WAS
 * published, so a wrong type or key is visible at a glance:
 *
 * <pre>
 * Expected an event with type=order.placed, key=order-9 to be published within 2 s, but none was.
 * Published: 2 events:
 *   1. order.placed key=order-7 id=0190... destination=orders payload={"id":7}
 *   2. order.cancelled key=order-7 id=0190... destination=orders payload={"id":7}
 * </pre>
 *
 * <p>Publisher assertions read a {@link RecordingPublisher}; broker assertions read any supplier of
 * the {@link ReceivedMessage}s a consumer collected so far; store assertions use only the
 * {@link OutboxStore} port, so they work for the in-memory store and the PostgreSQL store alike.
 */
public final class OutboxAssertions {

    /** How long the await methods wait when no timeout is given: 10 seconds. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);
    /** How long "nothing published" watches when no period is given: 500 ms. */
    public static final Duration DEFAULT_QUIET_PERIOD = Duration.ofMillis(500);

    private static final Duration POLL_INTERVAL = Duration.ofMillis(20);
    private static final int DEAD_LETTERS_LISTED = 20;

    private OutboxAssertions() {}

    // ------------------------------------------------------------------ a recording publisher

    /**
     * Waits up to {@link #DEFAULT_TIMEOUT} until {@code publisher} has published an event matching
     * {@code filter}, and returns the first such event.
     *
     * @throws AssertionError listing every published event when none matched in time
     */
    public static OutboxEvent awaitPublished(RecordingPublisher publisher, EventFilter filter) {
        return awaitPublished(publisher, filter, DEFAULT_TIMEOUT);
    }

    /** Like {@link #awaitPublished(RecordingPublisher, EventFilter)}, waiting up to {@code timeout}. */
    public static OutboxEvent awaitPublished(RecordingPublisher publisher, EventFilter filter, Duration timeout) {
        Objects.requireNonNull(publisher, "publisher");
        Objects.requireNonNull(filter, "filter");
        return awaitMatch(
                publisher::published, filter, filter.describe(), timeout, "published", EventListing::ofEvents);
    }

    /**
     * Waits up to {@code timeout} until {@code publisher} has published at least {@code count} events
     * matching {@code filter} (repeats count), and returns them in publish order.
     */
    public static List<OutboxEvent> awaitPublished(
            RecordingPublisher publisher, EventFilter filter, int count, Duration timeout) {
        Objects.requireNonNull(publisher, "publisher");
        Objects.requireNonNull(filter, "filter");
        if (count < 1) {
            throw new IllegalArgumentException(
                    "count must be at least 1, was " + count + " (use assertNothingPublished to expect none)");
        }
        AtomicReference<List<OutboxEvent>> matching = new AtomicReference<>(List.of());
        try {
            poll(timeout).until(() -> {
                matching.set(publisher.published(filter));
                return matching.get().size() >= count;
            });
        } catch (ConditionTimeoutException e) {
            int found = matching.get().size();
            String events =
                    filter.describe().replaceFirst("^an event", "events").replaceFirst("^any event", "events");
            throw new AssertionError(
                    "Expected " + count + " " + events + " to be published within "
                            + EventListing.duration(timeout) + ", but " + found + (found == 1 ? " was." : " were.")
                            + System.lineSeparator() + "Published: " + EventListing.ofEvents(publisher.published()),
                    e);
        }
        return matching.get().subList(0, count);
    }

    /**
     * Asserts that {@code publisher} publishes no event matching {@code filter} during
     * {@link #DEFAULT_QUIET_PERIOD}: what a rolled-back transaction must look like.
     *
     * @throws AssertionError at the first matching event, listing every published event
     */
    public static void assertNothingPublished(RecordingPublisher publisher, EventFilter filter) {
        assertNothingPublished(publisher, filter, DEFAULT_QUIET_PERIOD);
    }

    /**
     * Like {@link #assertNothingPublished(RecordingPublisher, EventFilter)}, watching for
     * {@code quietPeriod}. Choose a period longer than your relay needs to publish a committed event,
     * or the check proves little; driving the relay by hand ({@code relay.runOnce()}) before
     * asserting makes even {@link Duration#ZERO} meaningful.
     */
    public static void assertNothingPublished(RecordingPublisher publisher, EventFilter filter, Duration quietPeriod) {
        Objects.requireNonNull(publisher, "publisher");
        Objects.requireNonNull(filter, "filter");
        assertNoMatch(
                publisher::published, filter, filter.describe(), quietPeriod, "published", EventListing::ofEvents);
    }

    // ------------------------------------------------------------------ messages read from a broker

    /**
     * Waits up to {@code timeout} until {@code received} (what a consumer has read so far, e.g. a
     * fixture's consumer) contains a message matching {@code filter}, and returns the first one.
     *
     * @throws AssertionError listing every received message when none matched in time
     */
    public static ReceivedMessage awaitReceived(
            Supplier<? extends List<ReceivedMessage>> received, EventFilter filter, Duration timeout) {
        Objects.requireNonNull(received, "received");
        Objects.requireNonNull(filter, "filter");
        return awaitMatch(
                () -> List.copyOf(received.get()),
                filter::matches,
                filter.describe(),
                timeout,
                "received",
                EventListing::ofMessages);
    }

    /**
     * Asserts that {@code received} gets no message matching {@code filter} during {@code quietPeriod}.
     *
     * @throws AssertionError at the first matching message, listing every received message
     */
    public static void assertNothingReceived(
            Supplier<? extends List<ReceivedMessage>> received, EventFilter filter, Duration quietPeriod) {
        Objects.requireNonNull(received, "received");
        Objects.requireNonNull(filter, "filter");
        assertNoMatch(
                () -> List.copyOf(received.get()),
                filter::matches,
                filter.describe(),
                quietPeriod,
                "received",
                EventListing::ofMessages);
    }

    // ------------------------------------------------------------------ any outbox store

    /**
     * Asserts that the store holds no event with this id (in any state): the row of a rolled-back
     * transaction must not exist.
     *
     * @throws AssertionError describing the event found
     */
    public static void assertNotInOutbox(OutboxStore store, UUID eventId) {
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(eventId, "eventId");
        Optional<OutboxEvent> found = store.find(eventId);
        if (found.isPresent()) {
            throw new AssertionError("Expected no outbox event with id " + eventId + ", but the outbox holds it: "
                    + found.get() + " (was the transaction that appended it committed after all?)");
        }
    }

    /**
     * Asserts that the store holds no event at all, in any state (for a store of the test's own, after
     * a transaction that must have rolled back).
     *
     * @throws AssertionError with the count per state
     */
    public static void assertOutboxEmpty(OutboxStore store) {
        Objects.requireNonNull(store, "store");
        Map<EventStatus, Long> counts = store.countByStatus();
        if (counts.values().stream().mapToLong(Long::longValue).sum() != 0) {
            throw new AssertionError("Expected an empty outbox, but it holds " + describe(counts));
        }
    }

    /** Waits up to {@link #DEFAULT_TIMEOUT} until the store has no pending and no in-flight event. */
    public static void awaitDrained(OutboxStore store) {
        awaitDrained(store, DEFAULT_TIMEOUT);
    }

    /**
     * Waits up to {@code timeout} until the store has no pending and no in-flight event (every event is
     * sent, deleted or dead-lettered). Combine with {@link #assertNoDeadLetters} to require success.
     *
     * @throws AssertionError with the count per state and the age of the oldest pending event
     */
    public static void awaitDrained(OutboxStore store, Duration timeout) {
        Objects.requireNonNull(store, "store");
        AtomicReference<Map<EventStatus, Long>> last = new AtomicReference<>(Map.of());
        try {
            poll(timeout).until(() -> {
                Map<EventStatus, Long> counts = store.countByStatus();
                last.set(counts);
                return counts.getOrDefault(EventStatus.PENDING, 0L) == 0
                        && counts.getOrDefault(EventStatus.IN_FLIGHT, 0L) == 0;
            });
        } catch (ConditionTimeoutException e) {
            String oldest = store.oldestPendingCreatedAt()
                    .map(at -> "; the oldest pending event was appended at " + at)
                    .orElse("");
            throw new AssertionError(
                    "Expected the outbox to be drained (nothing pending or in flight) within "
                            + EventListing.duration(timeout) + ", but it holds " + describe(last.get()) + oldest
                            + ". Is a relay running (and, when time comes from a ManualClock, is the clock moving past "
                            + "the retry backoff)?",
                    e);
        }
    }

    /**
     * Asserts that the store holds no dead letter ({@link EventStatus#FAILED}).
     *
     * @throws AssertionError listing the dead letters with their last error
     */
    public static void assertNoDeadLetters(OutboxStore store) {
        Objects.requireNonNull(store, "store");
        long total = store.countByStatus().getOrDefault(EventStatus.FAILED, 0L);
        if (total == 0) {
            return;
        }
        List<OutboxEvent> dead = store instanceof OperatorStore operator
                ? operator.findDeadLetters(DeadLetterFilter.any(), OptionalLong.empty(), DEAD_LETTERS_LISTED)
                        .events()
                : List.of();
        throw new AssertionError("Expected no dead letters, but the outbox holds " + total
                + (dead.isEmpty() ? "" : " (first " + dead.size() + " listed): ")
                + EventListing.list(
                        dead,
                        event -> EventListing.line(event) + " attempts=" + event.attempts() + " lastError="
                                + event.lastError().orElse("-")));
    }

    // ------------------------------------------------------------------ shared machinery

    private static <T> T awaitMatch(
            Supplier<List<T>> source,
            Predicate<T> test,
            String described,
            Duration timeout,
            String verb,
            Function<List<T>, String> listing) {
        AtomicReference<T> match = new AtomicReference<>();
        try {
            poll(timeout).until(() -> {
                source.get().stream().filter(test).findFirst().ifPresent(match::set);
                return match.get() != null;
            });
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(
                    "Expected " + described + " to be " + verb + " within " + EventListing.duration(timeout)
                            + ", but none was." + System.lineSeparator() + capitalized(verb) + ": "
                            + listing.apply(source.get()),
                    e);
        }
        return match.get();
    }

    private static <T> void assertNoMatch(
            Supplier<List<T>> source,
            Predicate<T> test,
            String described,
            Duration quietPeriod,
            String verb,
            Function<List<T>, String> listing) {
        Objects.requireNonNull(quietPeriod, "quietPeriod");
        Predicate<List<T>> anyMatch = items -> items.stream().anyMatch(test);
        try {
            if (!quietPeriod.isZero()) {
                Awaitility.await()
                        .pollDelay(Duration.ZERO)
                        .pollInterval(POLL_INTERVAL)
                        .atMost(quietPeriod.plus(Duration.ofSeconds(5)))
                        .during(quietPeriod)
                        .failFast(() -> anyMatch.test(source.get()))
                        .until(() -> true);
            }
        } catch (TerminalFailureException | ConditionTimeoutException e) {
            // reported below with the listing
        }
        List<T> items = source.get();
        long matching = items.stream().filter(test).count();
        if (matching > 0) {
            String what = described.equals(EventFilter.anyEvent().describe())
                    ? "nothing"
                    : "no " + described.replaceFirst("^an ", "");
            throw new AssertionError("Expected " + what + " to be " + verb
                    + (quietPeriod.isZero() ? "" : " within " + EventListing.duration(quietPeriod)) + ", but "
                    + (matching == 1 ? "1 was." : matching + " were.") + System.lineSeparator()
                    + capitalized(verb) + ": " + listing.apply(items));
        }
    }

    private static ConditionFactory poll(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        return Awaitility.await()
                .pollDelay(Duration.ZERO)
                .pollInterval(POLL_INTERVAL)
                .atMost(timeout);
    }

    private static String describe(Map<EventStatus, Long> counts) {
        StringBuilder text = new StringBuilder();
        for (EventStatus status : EventStatus.values()) {
            if (!text.isEmpty()) {
                text.append(", ");
            }
            text.append(status.databaseValue()).append('=').append(counts.getOrDefault(status, 0L));
        }
        return text.toString();
    }

    private static String capitalized(String verb) {
        return Character.toUpperCase(verb.charAt(0)) + verb.substring(1);
    }
}
