package dev.outboxjava.core.inbox;

import java.time.Clock;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * An {@link Inbox} in memory, for unit tests of consumers: the same deduplication and the same
 * concurrency behaviour as the PostgreSQL inbox (a concurrent duplicate waits for the first
 * delivery, then sees {@link InboxResult#DUPLICATE}; a failed work records nothing).
 *
 * <p>What it cannot do is roll back the work's own effects: it has no real transaction. The handle
 * given to the work comes from the {@code handles} function (a fake connection, a test repository,
 * or just the {@link InboxKey} with {@link #create(Clock)}). Not durable. Thread-safe.
 *
 * @param <T> the transaction handle the work receives
 */
public final class InMemoryInbox<T> implements Inbox<T> {

    /** One (consumer, message) pair; its monitor serialises deliveries of that pair, like a unique index. */
    private static final class Slot {
        private volatile Instant processedAt; // written under this slot's monitor
    }

    private final Map<InboxKey, Slot> slots = new ConcurrentHashMap<>();
    private final Clock clock;
    private final Function<InboxKey, T> handles;

    private InMemoryInbox(Clock clock, Function<InboxKey, T> handles) {
        this.clock = Objects.requireNonNull(clock, "clock");
        this.handles = Objects.requireNonNull(handles, "handles");
    }

    /** An inbox whose work receives the {@link InboxKey} being processed. Records are stamped by {@code clock}. */
    public static InMemoryInbox<InboxKey> create(Clock clock) {
        return new InMemoryInbox<>(clock, key -> key);
    }

    /** An inbox whose work receives {@code handles.apply(key)}, e.g. a test double of your transaction. */
    public static <T> InMemoryInbox<T> create(Clock clock, Function<InboxKey, T> handles) {
        return new InMemoryInbox<>(clock, handles);
    }

    @Override
    public <X extends Exception> InboxResult process(String consumerName, String messageId, InboxWork<T, X> work)
            throws X {
        Objects.requireNonNull(work, "work");
        InboxKey key = new InboxKey(consumerName, messageId);
        while (true) {
            Slot slot = slots.computeIfAbsent(key, k -> new Slot());
            synchronized (slot) {
                if (slots.get(key) != slot) {
                    continue; // cleaned up while we waited: start over with the current slot
                }
                if (slot.processedAt != null) {
                    return InboxResult.DUPLICATE;
                }
                boolean done = false;
                try {
                    work.execute(handles.apply(key));
                    slot.processedAt = clock.instant();
                    done = true;
                    return InboxResult.PROCESSED;
                } finally {
                    if (!done) {
                        slots.remove(key, slot); // nothing recorded; a waiting duplicate starts over and runs the work
                    }
                }
            }
        }
    }

    @Override
    public boolean isProcessed(String consumerName, String messageId) {
        Slot slot = slots.get(new InboxKey(consumerName, messageId));
        return slot != null && slot.processedAt != null;
    }

    @Override
    public int cleanUp(Instant processedBefore, int limit) {
        Objects.requireNonNull(processedBefore, "processedBefore");
        if (limit <= 0) {
            return 0;
        }
        List<Map.Entry<InboxKey, Instant>> old = slots.entrySet().stream()
                .map(entry -> Map.entry(entry.getKey(), processedAt(entry.getValue())))
                .filter(entry -> entry.getValue().isBefore(processedBefore))
                .sorted(Map.Entry.comparingByValue(Comparator.naturalOrder()))
                .limit(limit)
                .toList();
        int deleted = 0;
        for (Map.Entry<InboxKey, Instant> entry : old) {
            Slot slot = slots.get(entry.getKey());
            if (slot != null && slots.remove(entry.getKey(), slot)) {
                deleted++;
            }
        }
        return deleted;
    }

    /** How many messages are recorded as processed now. */
    public int size() {
        return (int) slots.values().stream()
                .filter(slot -> processedAt(slot) != Instant.MAX)
                .count();
    }

    // Unprocessed slots (failed or in-progress work) sort last and are never cleaned up as "old".
    private static Instant processedAt(Slot slot) {
        Instant processedAt = slot.processedAt;
        return processedAt == null ? Instant.MAX : processedAt;
    }
}
