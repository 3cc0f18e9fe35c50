package dev.outboxjava.core;

import java.util.Objects;

/**
 * Whether events with the same key reach the broker in the order they were appended, and what a
 * dead letter does to the rest of its key.
 *
 * <ul>
 *   <li>{@link Mode#NONE} (the default): events are published as soon as they are due, by any relay,
 *       in any order. Fastest.</li>
 *   <li>{@link Mode#PER_KEY}: events with the same key are published in the order of their sequence,
 *       by one relay at a time per key. A failing event holds back the later events of ITS key only,
 *       until it is published or dead-lettered; other keys keep flowing. Events without a key are
 *       never ordered.</li>
 * </ul>
 *
 * @param mode            whether per-key order is kept
 * @param afterDeadLetter with {@link Mode#PER_KEY}: whether a dead letter holds its key until an
 *                        operator requeues or purges it ({@link AfterDeadLetter#HOLD_KEY}, the
 *                        default: no event overtakes a lost one) or the key continues with its next
 *                        event ({@link AfterDeadLetter#CONTINUE})
 */
public record Ordering(Mode mode, AfterDeadLetter afterDeadLetter) {

    /** Whether per-key order is kept. */
    public enum Mode {
        NONE,
        PER_KEY
    }

    /** What the events after a dead letter of the same key do. */
    public enum AfterDeadLetter {
        /** Wait until an operator requeues or purges the dead letter. */
        HOLD_KEY,
        /** Go on with the next event of the key. */
        CONTINUE
    }

    public Ordering {
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(afterDeadLetter, "afterDeadLetter");
    }

    /** No ordering: the default. */
    public static Ordering none() {
        return new Ordering(Mode.NONE, AfterDeadLetter.HOLD_KEY);
    }

    /** Per-key ordering with the given dead-letter behaviour. */
    public static Ordering perKey(AfterDeadLetter afterDeadLetter) {
        return new Ordering(Mode.PER_KEY, afterDeadLetter);
    }

    /** Whether events of one key are ordered. */
    public boolean isPerKey() {
        return mode == Mode.PER_KEY;
    }

    /**
     * The ordering as an operator reads it: {@code none}, {@code per key, a dead letter holds its key} or
     * {@code per key, a key goes on after a dead letter}.
     */
    public String describe() {
        if (!isPerKey()) {
            return "none";
        }
        return afterDeadLetter == AfterDeadLetter.HOLD_KEY
                ? "per key, a dead letter holds its key"
                : "per key, a key goes on after a dead letter";
    }

    /** Whether a dead letter blocks the later events of its key. */
    public boolean deadLetterHoldsKey() {
        return isPerKey() && afterDeadLetter == AfterDeadLetter.HOLD_KEY;
    }
}
