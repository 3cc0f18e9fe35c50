package dev.outboxjava.rabbitmq.internal;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.KeyHoldBack;
import dev.outboxjava.core.port.PublishOutcome;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The state of one batch while it is published: an outcome slot per event (by position in the
 * batch), which of the events sent in the current round are still unconfirmed, and which were lost
 * with their channel. Written by the channel's listener threads and the publishing thread; every
 * method is synchronized on this object, and the publishing thread waits on it.
 *
 * <p>The batch reports under the per-key hold-back rule ({@link KeyHoldBack}): an event after a
 * failure of its key is not sent once that failure is known, and is reported held back even when
 * the broker confirmed it.
 */
public final class BatchPublication {

    private final List<OutboxEvent> events;
    private final PublishOutcome[] outcomes;
    private final String[] returnReasons;
    private final boolean[] nacked;
    private final Map<UUID, Integer> indexById = new HashMap<>();
    private final KeyHoldBack holdBack;
    private final List<Integer> lost = new ArrayList<>();
    private int unconfirmed;
    private boolean finished;

    public BatchPublication(List<OutboxEvent> events) {
        this.events = List.copyOf(events);
        this.outcomes = new PublishOutcome[events.size()];
        this.returnReasons = new String[events.size()];
        this.nacked = new boolean[events.size()];
        this.holdBack = KeyHoldBack.of(this.events);
        for (int i = events.size() - 1; i >= 0; i--) {
            indexById.put(events.get(i).id(), i);
        }
    }

    public OutboxEvent event(int index) {
        return events.get(index);
    }

    public int size() {
        return events.size();
    }

    /** The event at {@code index} was handed to a channel and awaits its confirm. */
    synchronized void sent(int index) {
        unconfirmed++;
    }

    /** A send that never reached the broker (the channel was closed first). */
    synchronized void notSent(int index) {
        settle();
    }

    synchronized void acked(int index) {
        if (!finished && outcomes[index] == null) {
            UUID id = events.get(index).id();
            set(
                    index,
                    returnReasons[index] != null
                            ? PublishOutcome.unroutable(id, returnReasons[index])
                            : PublishOutcome.published(id));
        }
        settle();
    }

    synchronized void nacked(int index) {
        if (!finished && outcomes[index] == null) {
            OutboxEvent event = events.get(index);
            set(
                    index,
                    returnReasons[index] != null
                            ? PublishOutcome.unroutable(event.id(), returnReasons[index])
                            : PublishOutcome.failed(
                                    event.id(),
                                    "RabbitMQ refused the event (negative publisher confirm) for " + "exchange '"
                                            + event.destination() + "' and routing key '" + event.routingKey() + "'",
                                    true));
            nacked[index] = true;
        }
        settle();
    }

    /**
     * The broker returned a mandatory message as unroutable. RabbitMQ sends the return before the
     * confirm; other brokers (Qpid) may nack first, so a nack's reason is replaced by the return's.
     */
    synchronized void returned(UUID eventId, String reason) {
        Integer index = indexById.get(eventId);
        if (index == null || finished) {
            return;
        }
        returnReasons[index] = reason;
        if (nacked[index]) {
            set(index, PublishOutcome.unroutable(eventId, reason));
        }
    }

    /** The channel closed before the broker confirmed the event: its fate is unknown. */
    synchronized void lost(int index) {
        if (!finished && outcomes[index] == null) {
            lost.add(index);
        }
        settle();
    }

    private void settle() {
        unconfirmed--;
        if (unconfirmed <= 0) {
            notifyAll();
        }
    }

    /**
     * Waits until every event sent in this round was confirmed or lost, or the deadline passed.
     *
     * @return whether the round settled before the deadline
     */
    public synchronized boolean awaitRound(long deadlineNanos) throws InterruptedException {
        while (unconfirmed > 0) {
            long left = deadlineNanos - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            wait(left / 1_000_000, (int) (left % 1_000_000));
        }
        return true;
    }

    /** The events lost with their channel in this round, in batch order; clears the list. */
    public synchronized List<Integer> takeLost() {
        List<Integer> taken = new ArrayList<>(lost);
        lost.clear();
        taken.sort(null);
        return taken;
    }

    /** Records a failure unless the event already has an outcome. */
    public synchronized void fail(int index, String reason, boolean retryable) {
        if (!finished && outcomes[index] == null) {
            set(index, PublishOutcome.failed(events.get(index).id(), reason, retryable));
        }
    }

    /** Records that the event's destination does not exist or routes it nowhere, unless it has an outcome. */
    public synchronized void unroutable(int index, String reason) {
        if (!finished && outcomes[index] == null) {
            set(index, PublishOutcome.unroutable(events.get(index).id(), reason));
        }
    }

    /**
     * Whether the event at {@code index} is held back by a known failure of an earlier event of its
     * key; if so, records it as held back (unless it already has an outcome), and it is not sent.
     */
    public synchronized boolean holdBackIfKeyFailed(int index) {
        Optional<PublishOutcome> heldBack = holdBack.check(index);
        if (heldBack.isPresent() && !finished && outcomes[index] == null) {
            outcomes[index] = heldBack.get();
        }
        return heldBack.isPresent();
    }

    private void set(int index, PublishOutcome outcome) {
        outcomes[index] = outcome;
        if (outcome instanceof PublishOutcome.Failed failed) {
            holdBack.failed(index, failed.reason());
        }
    }

    public synchronized boolean isFinished() {
        return finished;
    }

    /**
     * Ends the publication: events without an outcome fail with {@code unresolvedReason} (retryable),
     * and the hold-back rule is applied to the whole batch.
     */
    public synchronized List<PublishOutcome> finish(String unresolvedReason) {
        for (int i = 0; i < outcomes.length; i++) {
            if (outcomes[i] == null) {
                set(i, PublishOutcome.failed(events.get(i).id(), unresolvedReason, true));
            }
        }
        if (!finished) {
            finished = true;
            List<PublishOutcome> applied = holdBack.apply(Arrays.asList(outcomes));
            for (int i = 0; i < outcomes.length; i++) {
                outcomes[i] = applied.get(i);
            }
        }
        return List.copyOf(Arrays.asList(outcomes));
    }
}
