package dev.outboxjava.testkit.faults;

import dev.outboxjava.core.OutboxEvent;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the producers did, event by event: which events committed, which were rolled back on purpose
 * (or because the append failed), and which had an unknown outcome (the commit itself failed, so the
 * transaction may or may not have landed; the checker asks the database), and for committed events when
 * their transaction began writing and when its commit had returned, so that per-key order can be checked
 * between transactions that did not overlap. Thread-safe.
 */
public final class ProducerLedger {

    private final Map<UUID, Optional<String>> committed = new ConcurrentHashMap<>();
    private final Set<UUID> rolledBack = ConcurrentHashMap.newKeySet();
    private final Map<UUID, Optional<String>> uncertain = new ConcurrentHashMap<>();
    private final Map<UUID, Transaction> transactions = new ConcurrentHashMap<>();
    private final AtomicLong transactionIds = new AtomicLong();

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
