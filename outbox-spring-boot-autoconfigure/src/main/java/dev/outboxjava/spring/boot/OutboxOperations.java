package dev.outboxjava.spring.boot;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.port.Backlog;
import dev.outboxjava.core.port.DeadLetterFilter;
import dev.outboxjava.core.port.EventPage;
import dev.outboxjava.core.port.OperatorStore;
import dev.outboxjava.postgres.PostgresOutboxStore;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The outbox's publications from the application's own code — a scheduled job, an admin page: how many
 * events are incomplete or failed, the oldest one, and resubmitting failed ones. The same operator port
 * ({@link OperatorStore}) the actuator endpoint, the console and the CLI use, so each resubmit is in the
 * audit trail under the actor given; after one, this instance's relay is woken.
 *
 * <pre>{@code
 * @Scheduled(cron = "0 0 * * * *")
 * void resubmitPaymentFailures() {
 *     operations.resubmit(DeadLetterFilter.any().withType("shop.payment.taken"), "hourly-resubmit");
 * }
 * }</pre>
 */
public final class OutboxOperations {

    private final PostgresOutboxStore store;
    private final Clock clock;
    private final Runnable wakeUp;

    OutboxOperations(PostgresOutboxStore store, Clock clock, Runnable wakeUp) {
        this.store = Objects.requireNonNull(store, "store");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.wakeUp = Objects.requireNonNull(wakeUp, "wakeUp");
    }

    /** Events per status (pending, in flight, sent, failed). */
    public Map<EventStatus, Long> countByStatus() {
        return store.countByStatus();
    }

    /** When the oldest incomplete (pending) event was appended; empty when none is. */
    public Optional<Instant> oldestIncomplete() {
        return store.oldestPendingCreatedAt();
    }

    /** The incomplete events by what they wait for: due now, retrying, scheduled later, held behind their key. */
    public Backlog backlog() {
        return store.backlog(clock.instant());
    }

    /** How many failed events (dead letters) the filter matches. */
    public long countFailed(DeadLetterFilter filter) {
        return store.countDeadLetters(filter);
    }

    /** One page of failed events, oldest first, after position {@code after} (a page's {@code next}). */
    public EventPage failed(DeadLetterFilter filter, OptionalLong after, int limit) {
        return store.findDeadLetters(filter, after, limit);
    }

    /**
     * Puts the failed events the filter matches back to pending, their attempts reset, recorded in the
     * audit trail as done by {@code actor}.
     *
     * @return how many were resubmitted
     */
    public long resubmit(DeadLetterFilter filter, String actor) {
        long requeued = store.requeueDeadLetters(filter, Objects.requireNonNull(actor, "actor"), clock.instant());
        if (requeued > 0) {
            wakeUp.run();
        }
        return requeued;
    }

    /** The whole operator port: held keys, attempts, the audit trail, purges, edits. */
    public OperatorStore operator() {
        return store;
    }
}
