package dev.outboxjava.it.faults;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.testkit.contract.ReceivedMessage;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;

/**
 * Compares what the broker delivered with what the producers committed and what the table holds.
 *
 * <ul>
 *   <li><b>lost</b>: committed (per the producers, or found in the table for a commit of unknown outcome)
 *       and never delivered;</li>
 *   <li><b>phantom</b>: delivered, but never committed — rolled back on purpose, or unknown;</li>
 *   <li><b>reordered</b> (per-key ordering only): a key's events must be delivered in the key's write order,
 *       judged on <em>first</em> deliveries, because that is what a consumer that drops duplicates by id sees;
 *       a duplicate may arrive after later events of its key (a relay that died after the broker's
 *       acknowledgement is re-published after the sweeper reclaims it), which at-least-once delivery allows.
 *       The write order is the version its transaction read under the key's row lock
 *       ({@link ProducerLedger#wrote}): it orders every two writes of a key, including a transaction that
 *       locked another key first, began (and took its transaction id) before the writer it waited for, and
 *       appended after it. For events without a recorded version the order is the sequence, binding only
 *       writes that happened one after the other — in the same transaction, or in a transaction that had
 *       committed before the other began writing; events of overlapping transactions that share no lock have
 *       no order to keep: either may come first;</li>
 *   <li><b>duplicates</b>: deliveries beyond the first. Each must be explained, by one of the three ways
 *       at-least-once delivery repeats an event: the event was in flight while a relay crashed
 *       ({@link ExposureLog}: it was sampled in flight during a fault window); a relay reported its mark as
 *       lease-lost (its lease expired under it: a hung publisher, a skewed clock); or a publish of it was
 *       reported failed and retried (its row shows a failed attempt: a broker connection closed or a
 *       broker stopped before confirming what it had taken). The rest are counted as unexplained — a relay
 *       publishing an event twice for no reason;</li>
 *   <li><b>stuck</b>: still in flight after the sweeper has run (call the checker after waiting longer
 *       than the lease timeout with a sweeper running).</li>
 * </ul>
 */
public final class DeliveryChecker {

    private DeliveryChecker() {}

    /**
     * @param ledger     what the producers did
     * @param received   every message the consumer read, in arrival order (per partition for Kafka)
     * @param stored     the table's rows at the end ({@link OutboxTableProbe#events()})
     * @param exposure   the ids exposed to faults ({@link ExposureLog#exposed()})
     * @param leaseLost  the ids whose marks the relays reported as lease-lost (their lease expired while a relay
     *                   still worked on them: a duplicate of each is explained)
     * @param faults     the faults injected
     * @param perKey     whether per-key order is required
     */
    public static FaultReport check(
            ProducerLedger ledger,
            List<ReceivedMessage> received,
            Map<UUID, OutboxTableProbe.StoredEvent> stored,
            Map<UUID, FaultKind> exposure,
            Set<UUID> leaseLost,
            List<InjectedFault> faults,
            boolean perKey) {
        Set<UUID> committed = new HashSet<>(ledger.committedEvents().keySet());
        Set<UUID> rolledBack = new HashSet<>(ledger.rolledBackEvents());
        for (UUID id : ledger.uncertainEvents().keySet()) {
            (stored.containsKey(id) ? committed : rolledBack).add(id);
        }

        Map<UUID, Integer> deliveries = new HashMap<>();
        // per key, the first deliveries so far: by write order (version) and, for events without one, by sequence
        Map<String, TreeMap<Long, UUID>> deliveredByVersion = new HashMap<>();
        Map<String, TreeMap<Long, UUID>> deliveredBySequence = new HashMap<>();
        Map<UUID, Integer> firstPosition = new HashMap<>();
        List<String> reorderedSample = new java.util.ArrayList<>();
        int position = 0;
        long phantom = 0;
        long reordered = 0;
        long orderChecked = 0;
        for (ReceivedMessage message : received) {
            position++;
            UUID id = parse(message.id());
            int count = deliveries.merge(id == null ? new UUID(0, 0) : id, 1, Integer::sum);
            if (count == 1 && id != null) {
                firstPosition.put(id, position);
            }
            if (id == null || !committed.contains(id)) {
                if (count == 1) {
                    phantom++;
                }
                continue;
            }
            if (count == 1 && perKey) {
                OutboxTableProbe.StoredEvent event = stored.get(id);
                Optional<String> key = event != null ? event.key() : message.key();
                OptionalLong version = ledger.writeOrderOf(id);
                UUID overtaken = null;
                if (key.isPresent() && version.isPresent()) {
                    orderChecked++;
                    TreeMap<Long, UUID> delivered = deliveredByVersion.computeIfAbsent(key.get(), k -> new TreeMap<>());
                    Map.Entry<Long, UUID> later = delivered.higherEntry(version.getAsLong());
                    overtaken = later == null ? null : later.getValue();
                    delivered.put(version.getAsLong(), id);
                } else if (key.isPresent() && event != null) {
                    orderChecked++;
                    TreeMap<Long, UUID> delivered =
                            deliveredBySequence.computeIfAbsent(key.get(), k -> new TreeMap<>());
                    for (UUID later : delivered.tailMap(event.sequence(), false).values()) {
                        if (mustPrecede(ledger, id, later)) {
                            overtaken = later;
                            break;
                        }
                    }
                    delivered.put(event.sequence(), id);
                }
                if (overtaken != null) {
                    reordered++;
                    if (reorderedSample.size() < 10) {
                        reorderedSample.add(describe(id, stored.get(id), ledger, position, exposure, leaseLost)
                                + " after "
                                + describe(
                                        overtaken,
                                        stored.get(overtaken),
                                        ledger,
                                        firstPosition.get(overtaken),
                                        exposure,
                                        leaseLost));
                    }
                }
            }
        }
        Set<String> orderedKeys = new HashSet<>(deliveredByVersion.keySet());
        orderedKeys.addAll(deliveredBySequence.keySet());

        long lost = committed.stream().filter(id -> !deliveries.containsKey(id)).count();
        long duplicates = 0;
        long unexplained = 0;
        List<UUID> unexplainedSample = new java.util.ArrayList<>();
        Map<String, Long> causes = new java.util.TreeMap<>();
        for (Map.Entry<UUID, Integer> entry : deliveries.entrySet()) {
            if (entry.getValue() > 1 && committed.contains(entry.getKey())) {
                duplicates += entry.getValue() - 1;
                OutboxTableProbe.StoredEvent row = stored.get(entry.getKey());
                boolean failedAttempt = row != null && row.attempts() > 0;
                String cause = exposure.containsKey(entry.getKey())
                        ? "in flight at " + exposure.get(entry.getKey())
                        : leaseLost.contains(entry.getKey())
                                ? "lease lost"
                                : failedAttempt ? "publish failed, retried" : "unexplained";
                causes.merge(cause, (long) entry.getValue() - 1, Long::sum);
                if (cause.equals("unexplained")) {
                    unexplained += entry.getValue() - 1;
                    if (unexplainedSample.size() < 20) {
                        unexplainedSample.add(entry.getKey());
                    }
                }
            }
        }
        Map<EventStatus, Long> byStatus = new EnumMap<>(EventStatus.class);
        stored.values().forEach(event -> byStatus.merge(event.status(), 1L, Long::sum));
        Map<FaultKind, Integer> byKind = new EnumMap<>(FaultKind.class);
        faults.forEach(fault -> byKind.merge(fault.kind(), 1, Integer::sum));
        return new FaultReport(
                committed.size(),
                rolledBack.size(),
                faults.size(),
                byKind,
                lost,
                phantom,
                perKey ? OptionalLong.of(reordered) : OptionalLong.empty(),
                orderChecked,
                orderedKeys.size(),
                ledger.writesAfterHigherTransactionId(),
                duplicates,
                unexplained,
                byStatus.getOrDefault(EventStatus.IN_FLIGHT, 0L),
                byStatus.getOrDefault(EventStatus.PENDING, 0L),
                byStatus.getOrDefault(EventStatus.FAILED, 0L),
                leaseLost.size(),
                unexplainedSample,
                causes,
                reorderedSample);
    }

    /** Whether {@code earlier}'s write happened before {@code later}'s, so it must be delivered first. */
    private static boolean mustPrecede(ProducerLedger ledger, UUID earlier, UUID later) {
        Optional<ProducerLedger.Transaction> first = ledger.transactionOf(earlier);
        Optional<ProducerLedger.Transaction> second = ledger.transactionOf(later);
        return first.isPresent()
                && second.isPresent()
                && (first.get().id() == second.get().id() || first.get().happenedBefore(second.get()));
    }

    /** One event of a reordered pair, with what may explain it. */
    private static String describe(
            UUID id,
            OutboxTableProbe.StoredEvent event,
            ProducerLedger ledger,
            Integer position,
            Map<UUID, FaultKind> exposure,
            Set<UUID> leaseLost) {
        OptionalLong version = ledger.writeOrderOf(id);
        return "{id " + id
                + (event == null
                        ? ", not in the table"
                        : ", key " + event.key().orElse("-") + ", seq " + event.sequence() + ", attempts "
                                + event.attempts())
                + (version.isPresent() ? ", version " + version.getAsLong() : "")
                + ", first delivered at message " + position
                + (exposure.containsKey(id) ? ", in flight at " + exposure.get(id) : "")
                + (leaseLost.contains(id) ? ", lease lost" : "") + "}";
    }

    private static UUID parse(String id) {
        try {
            return UUID.fromString(id);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
