package dev.outboxjava.core;

import java.util.Objects;

/**
 * Why an event became a dead letter: which rule stopped the attempts. Recorded with the dead letter's
 * last attempt, so that an operator reads "the unroutable-destination budget of 3 was spent" rather than
 * guessing from "3 of 10 attempts".
 *
 * @param kind   the rule
 * @param budget the attempt budget that was spent (0 when {@code kind} is not a budget)
 */
public record DeadLetterReason(Kind kind, int budget) {

    /** The setting of the unroutable-destination budget, as the standalone worker and the starter name it. */
    public static final String UNROUTABLE_BUDGET_SETTING = "outbox.retry.unroutable.max.attempts";

    /** The rules that dead-letter an event. */
    public enum Kind {
        /** The publisher said another attempt cannot help (too large, not authorized, invalid). */
        NOT_RETRYABLE,
        /** The event's own attempt budget ({@link OutboxEvent#maxAttempts()}) was spent. */
        ATTEMPT_BUDGET,
        /** The smaller budget of an event whose destination does not exist or routes it nowhere was spent. */
        UNROUTABLE_BUDGET,
        /** An operator dead-lettered the event while it waited for a retry. */
        OPERATOR
    }

    public DeadLetterReason {
        Objects.requireNonNull(kind, "kind");
        if (budget < 0) {
            throw new IllegalArgumentException("budget must not be negative, was " + budget);
        }
    }

    /** The publisher said another attempt cannot help. */
    public static DeadLetterReason notRetryable() {
        return new DeadLetterReason(Kind.NOT_RETRYABLE, 0);
    }

    /** An operator dead-lettered the event. */
    public static DeadLetterReason operator() {
        return new DeadLetterReason(Kind.OPERATOR, 0);
    }

    /** The reason as an operator reads it, and as stores record it. */
    public String describe() {
        return switch (kind) {
            case NOT_RETRYABLE -> "not retryable: the publisher said another attempt cannot help";
            case ATTEMPT_BUDGET -> "the event's attempt budget of " + budget + " (max attempts) was spent";
            case UNROUTABLE_BUDGET ->
                "the unroutable-destination budget of " + budget + " (" + UNROUTABLE_BUDGET_SETTING + ") was spent";
            case OPERATOR -> "dead-lettered by an operator while it waited for a retry";
        };
    }
}
