package dev.outboxjava.core.port;

import dev.outboxjava.core.OutboxEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * The per-key hold-back rule of one batch, the one rule that publishers and the relay apply.
 *
 * <p>Within a batch, once an event with a key failed or was not acknowledged (any
 * {@link PublishOutcome.Failed}: retryable, not retryable, unroutable, timed out), every later event
 * of the same key in that batch is held back: a publisher does not hand it to the broker if it has
 * not yet, and whatever the broker said about it, it is reported as
 * {@link PublishOutcome#heldBack held back}, never as published. The relay returns a held-back event
 * to pending without spending an attempt, so it is published again after the event that held it
 * back. Events without a key, and events of other keys, are never held back. Destinations do not
 * matter: the key alone is the unit of order, as in the store.
 *
 * <p>Positions are indices into the batch as it was handed to {@link Publisher#publish}. Failures may
 * be recorded in any order (acknowledgements arrive asynchronously); only a failure at an earlier
 * position holds an event back. Holds the ids and keys of the batch only, not the payloads.
 * Thread-safe.
 */
public final class KeyHoldBack {

    private final UUID[] ids;
    private final String[] keys;
    /** Why the event at a position failed, once recorded. */
    private final String[] reasons;
    /** Per key, the position of the earliest event recorded as failed. */
    private final Map<String, Integer> firstFailure = new HashMap<>();

    private KeyHoldBack(List<OutboxEvent> batch) {
        this.ids = new UUID[batch.size()];
        this.keys = new String[batch.size()];
        this.reasons = new String[batch.size()];
        for (int i = 0; i < ids.length; i++) {
            OutboxEvent event = batch.get(i);
            ids[i] = event.id();
            keys[i] = event.key().orElse(null);
        }
    }

    /** The rule for {@code batch}, in the order the events are handed to the broker. */
    public static KeyHoldBack of(List<OutboxEvent> batch) {
        return new KeyHoldBack(Objects.requireNonNull(batch, "batch"));
    }

    /**
     * Records that the event at {@code position} failed or was not acknowledged.
     *
     * @param reason why, repeated in the reason of the events it holds back
     */
    public synchronized void failed(int position, String reason) {
        String key = keys[position];
        if (key != null) {
            if (reasons[position] == null) {
                reasons[position] = Objects.requireNonNull(reason, "reason");
            }
            firstFailure.merge(key, position, Math::min);
        }
    }

    /**
     * Whether the event at {@code position} is held back by a failure recorded so far.
     *
     * @return its held-back outcome when an earlier event of its key failed; empty otherwise
     */
    public synchronized Optional<PublishOutcome> check(int position) {
        String key = keys[position];
        Integer first = key == null ? null : firstFailure.get(key);
        return first == null || first >= position
                ? Optional.empty()
                : Optional.of(heldBack(position, first, reasons[first]));
    }

    /**
     * Applies the rule to the outcomes of the whole batch: every event after the first failure of its
     * key (among the failures recorded with {@link #failed} and those in {@code outcomes}) gets a
     * held-back outcome instead of its own. Does not change what was recorded.
     *
     * @param outcomes one outcome per event, in batch order
     * @return the outcomes to report, in batch order
     */
    public List<PublishOutcome> apply(List<PublishOutcome> outcomes) {
        if (outcomes.size() != ids.length) {
            throw new IllegalArgumentException("expected " + ids.length + " outcomes, got " + outcomes.size());
        }
        Map<String, Integer> first;
        String[] why;
        synchronized (this) {
            first = new HashMap<>(firstFailure);
            why = reasons.clone();
        }
        List<PublishOutcome> applied = new ArrayList<>(outcomes.size());
        for (int i = 0; i < ids.length; i++) {
            PublishOutcome outcome = Objects.requireNonNull(outcomes.get(i), "outcome");
            String key = keys[i];
            Integer earlier = key == null ? null : first.get(key);
            if (earlier != null && earlier < i) {
                applied.add(
                        outcome instanceof PublishOutcome.Failed failed && failed.heldBack()
                                ? outcome
                                : heldBack(i, earlier, why[earlier]));
            } else {
                if (key != null && outcome instanceof PublishOutcome.Failed failed) {
                    first.merge(key, i, Math::min);
                    if (why[i] == null) {
                        why[i] = failed.reason();
                    }
                }
                applied.add(outcome);
            }
        }
        return List.copyOf(applied);
    }

    /** Applies the rule to outcomes found by event id; see {@link #apply(List)}. */
    public static List<PublishOutcome> apply(List<OutboxEvent> batch, Map<UUID, PublishOutcome> outcomesById) {
        List<PublishOutcome> inOrder = new ArrayList<>(batch.size());
        for (OutboxEvent event : batch) {
            inOrder.add(Objects.requireNonNull(outcomesById.get(event.id()), () -> "no outcome for " + event.id()));
        }
        return of(batch).apply(inOrder);
    }

    private PublishOutcome heldBack(int position, int earlier, String earlierReason) {
        return PublishOutcome.heldBack(
                ids[position],
                "held back to keep per-key order: the earlier event "
                        + ids[earlier] + " with key '" + keys[position]
                        + "' failed or was not acknowledged in this batch"
                        + (earlierReason == null ? "" : " (" + earlierReason + ")"));
    }
}
