package dev.outboxjava.postgres.internal;

import dev.outboxjava.core.port.Attempt;
import dev.outboxjava.core.port.DeadLetterMark;
import dev.outboxjava.core.port.MarkResult;
import dev.outboxjava.core.port.RetryMark;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * The relay's failure marks (retry, dead letter) of the store: the layout's statement and the failed
 * attempts it marked ({@link AttemptRecording}), in one transaction on a connection of the store; a dead
 * letter's attempt keeps which rule stopped the attempts.
 */
public final class FailureMarks {

    private final StoreCalls calls;
    private final Layout layout;
    private final AttemptRecording attempts;

    public FailureMarks(StoreCalls calls, Layout layout, AttemptRecording attempts) {
        this.calls = calls;
        this.layout = layout;
        this.attempts = attempts;
    }

    public MarkResult retry(UUID leaseId, Collection<RetryMark> retryMarks, Instant now) {
        Map<UUID, String> errors = new HashMap<>();
        retryMarks.forEach(mark -> errors.put(mark.eventId(), mark.error()));
        return markWithAttempts(
                "mark " + retryMarks.size() + " events for retry",
                leaseId,
                errors,
                Map.of(),
                Attempt.Outcome.RETRY,
                now,
                connection -> layout.retry(connection, leaseId, retryMarks));
    }

    public MarkResult deadLettered(UUID leaseId, Collection<DeadLetterMark> deadLetterMarks, Instant now) {
        Map<UUID, String> errors = new HashMap<>();
        Map<UUID, String> stoppedBy = new HashMap<>();
        deadLetterMarks.forEach(mark -> {
            errors.put(mark.eventId(), mark.error());
            mark.reason().ifPresent(reason -> stoppedBy.put(mark.eventId(), reason.describe()));
        });
        return markWithAttempts(
                "dead-letter " + deadLetterMarks.size() + " events",
                leaseId,
                errors,
                stoppedBy,
                Attempt.Outcome.DEAD_LETTER,
                now,
                connection -> layout.deadLettered(connection, leaseId, deadLetterMarks));
    }

    /** A mark that records each event's failed attempt in the same transaction. */
    private MarkResult markWithAttempts(
            String attempted,
            UUID leaseId,
            Map<UUID, String> errors,
            Map<UUID, String> stoppedBy,
            Attempt.Outcome outcome,
            Instant now,
            StoreCalls.ConnectionCall<MarkResult> mark) {
        if (errors.isEmpty()) {
            return MarkResult.empty(); // no connection taken for nothing
        }
        Objects.requireNonNull(leaseId, "leaseId");
        return calls.withConnection(
                attempted + " under lease " + leaseId,
                connection -> attempts.withAttempts(
                        connection, leaseId, errors, stoppedBy, outcome, now, () -> mark.apply(connection)));
    }
}
