package dev.outboxjava.it.faults;

import dev.outboxjava.core.OutboxEvent;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * What the producers did, event by event: which events committed, which were rolled back on purpose
 * (or because the append failed), and which had an unknown outcome (the commit itself failed, so the
 * transaction may or may not have landed; the checker asks the database), and for committed events when
 * their transaction began writing and when its commit had returned, so that per-key order can be checked
 * between transactions that did not overlap, and each event's write order within its key: the version of the
 * key's aggregate row that its transaction read under that row's lock ({@link #wrote}), which orders every two
 * writes of a key, whichever transaction began first or took the lower transaction id. Thread-safe.
 */
public final class ProducerLedger {

    private final Map<UUID, Optional<String>> committed = new ConcurrentHashMap<>();
    private final Set<UUID> rolledBack = ConcurrentHashMap.newKeySet();
    private final Map<UUID, Optional<String>> uncertain = new ConcurrentHashMap<>();
    private final Map<UUID, Transaction> transactions = new ConcurrentHashMap<>();
    private final AtomicLong transactionIds = new AtomicLong();
    private final Map<UUID, Long> writeOrders = new ConcurrentHashMap<>();
    private final Map<UUID, Long> writerIds = new ConcurrentHashMap<>();
    // committed transactions by how many keys they touched (index 0: unknown, e.g. no write order recorded)
    private final AtomicLongArray transactionsByKeys = new AtomicLongArray(8);

    /**
     * One producer transaction, by {@link System#nanoTime()}: its events were written after
     * {@code beganWriting}, and it had committed by {@code committed}.
     */
    public record Transaction(long id, long beganWriting, long committed) {

        /** Whether this transaction had committed before {@code later} began writing: its events came first. */
        public boolean happenedBefore(Transaction later) {
            return committed - later.beganWriting < 0;
        }
    }

    /** Records the events of a transaction that committed, with no timing known (never ordered against others). */
    public void committed(Collection<OutboxEvent> events) {
        events.forEach(event -> committed.put(event.id(), event.key()));
    }

    /**
     * Records the events of a transaction that began writing at {@code beganWriting} and whose commit had
     * returned at {@code committedAt} ({@link System#nanoTime()}).
     */
    public void committed(Collection<OutboxEvent> events, long beganWriting, long committedAt) {
        Transaction transaction = new Transaction(transactionIds.incrementAndGet(), beganWriting, committedAt);
        events.forEach(event -> {
            committed.put(event.id(), event.key());
            transactions.put(event.id(), transaction);
        });
        long keys = events.stream()
                .filter(event -> writeOrders.containsKey(event.id()))
                .map(OutboxEvent::key)
                .distinct()
                .count();
        transactionsByKeys.incrementAndGet((int) Math.min(keys, transactionsByKeys.length() - 1));
    }

    /**
     * Records an event's write order within its key, before its transaction ends: the version its transaction
     * read from the key's aggregate row under that row's lock (1 for the key's first committed write, one more
     * for each later one). Kept whatever the transaction's outcome; only committed events are ever checked.
     */
    public void wrote(UUID eventId, long writeOrder) {
        writeOrders.put(eventId, writeOrder);
    }

    /**
     * Like {@link #wrote(UUID, long)}, with the database's id of the writing transaction
     * ({@code pg_current_xact_id()}), so that {@link #writesAfterHigherTransactionId()} can tell how often a key's
     * writer came after a transaction that began later.
     */
    public void wrote(UUID eventId, long writeOrder, long transactionId) {
        writeOrders.put(eventId, writeOrder);
        writerIds.put(eventId, transactionId);
    }

    /**
     * How many committed events were written, in their key's write order, right after an event of a transaction
     * with a higher id: a transaction that took its id (by locking another aggregate first) before the writer it
     * then waited for. The interleaving an outbox that orders a key's events by transaction id gets wrong.
     */
    public long writesAfterHigherTransactionId() {
        Map<String, TreeMap<Long, Long>> byKey = new java.util.HashMap<>();
        committed.forEach((id, key) -> {
            Long order = writeOrders.get(id);
            Long writer = writerIds.get(id);
            if (key.isPresent() && order != null && writer != null) {
                byKey.computeIfAbsent(key.get(), k -> new TreeMap<>()).put(order, writer);
            }
        });
        long count = 0;
        for (TreeMap<Long, Long> writers : byKey.values()) {
            long previous = Long.MIN_VALUE;
            for (long writer : writers.values()) {
                if (writer < previous) {
                    count++;
                }
                previous = writer;
            }
        }
        return count;
    }

    /** An event's write order within its key ({@link #wrote}); empty when none was recorded. */
    public OptionalLong writeOrderOf(UUID eventId) {
        Long order = writeOrders.get(eventId);
        return order == null ? OptionalLong.empty() : OptionalLong.of(order);
    }

    /**
     * How many committed transactions (with timing known) touched each number of keys with a recorded write order
     * (0: none recorded), the numbers that occurred only.
     */
    public Map<Integer, Long> committedTransactionsByKeys() {
        Map<Integer, Long> counts = new TreeMap<>();
        for (int keys = 0; keys < transactionsByKeys.length(); keys++) {
            if (transactionsByKeys.get(keys) > 0) {
                counts.put(keys, transactionsByKeys.get(keys));
            }
        }
        return counts;
    }

    /** Records the events of a transaction that was rolled back. */
    public void rolledBack(Collection<OutboxEvent> events) {
        events.forEach(event -> rolledBack.add(event.id()));
    }

    /** Records the events of a transaction whose commit failed with an unknown outcome. */
    public void uncertain(Collection<OutboxEvent> events) {
        events.forEach(event -> uncertain.put(event.id(), event.key()));
    }

    /** How many events committed so far. */
    public int committedCount() {
        return committed.size();
    }

    /** How many events were rolled back so far. */
    public int rolledBackCount() {
        return rolledBack.size();
    }

    /** The committed events' ids and keys (a copy). */
    public Map<UUID, Optional<String>> committedEvents() {
        return Map.copyOf(committed);
    }

    /** The rolled-back events' ids (a copy). */
    public Set<UUID> rolledBackEvents() {
        return Set.copyOf(rolledBack);
    }

    /** The transaction of a committed event; empty for events of an unknown outcome. */
    public Optional<Transaction> transactionOf(UUID eventId) {
        return Optional.ofNullable(transactions.get(eventId));
    }

    /** The events whose transaction outcome is unknown (a copy). */
    public Map<UUID, Optional<String>> uncertainEvents() {
        return Map.copyOf(uncertain);
    }
}
