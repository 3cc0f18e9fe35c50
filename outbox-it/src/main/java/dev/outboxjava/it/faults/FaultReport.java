package dev.outboxjava.it.faults;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.UUID;

/**
 * What the checker found after a fault run.
 *
 * @param events                 committed events (each must be delivered at least once)
 * @param rolledBack             events of rolled-back transactions (none may be delivered)
 * @param faults                 injected faults, all kinds
 * @param faultsByKind           injected faults per kind
 * @param lost                   committed events never delivered
 * @param phantom                delivered events that were never committed (rolled back or unknown)
 * @param reordered              with per-key ordering: events whose first delivery came after the first
 *                               delivery of a later event of the same key — later in the key's write order
 *                               (the version read under the key's row lock), or, for events without one, later
 *                               by sequence and written after theirs (same transaction, or committed before it
 *                               began writing); empty when order was not checked (ordering NONE)
 * @param orderChecked           committed events whose first delivery was checked for per-key order (0 when
 *                               order was not checked)
 * @param orderedKeys            distinct keys of those events
 * @param writtenAfterHigherId   committed events written, in their key's write order, right after an event of a
 *                               transaction with a higher id ({@link ProducerLedger#writesAfterHigherTransactionId})
 * @param duplicates             deliveries beyond the first, over all events
 * @param unexplainedDuplicates  duplicates of events that were never in flight while a fault struck
 * @param stuck                  events still in flight once the sweeper has run
 * @param pending                events still pending at the end
 * @param deadLettered           events dead-lettered (an injected fault should never exhaust an event's attempts)
 * @param leaseLost              events whose marks the relays reported as refused (lease lost)
 * @param unexplainedSample      up to 20 ids of unexplained duplicates, for the investigation
 * @param duplicateCauses        duplicates by what explains them (in flight at a fault of a kind, lease lost,
 *                               publish failed and retried, unexplained)
 * @param reorderedSample        up to 10 reordered events, each with the later event delivered before it
 */
public record FaultReport(
        long events,
        long rolledBack,
        int faults,
        Map<FaultKind, Integer> faultsByKind,
        long lost,
        long phantom,
        OptionalLong reordered,
        long orderChecked,
        long orderedKeys,
        long writtenAfterHigherId,
        long duplicates,
        long unexplainedDuplicates,
        long stuck,
        long pending,
        long deadLettered,
        long leaseLost,
        List<UUID> unexplainedSample,
        Map<String, Long> duplicateCauses,
        List<String> reorderedSample) {

    public FaultReport {
        faultsByKind = Map.copyOf(Objects.requireNonNull(faultsByKind, "faultsByKind"));
        Objects.requireNonNull(reordered, "reordered");
        unexplainedSample = List.copyOf(unexplainedSample);
        duplicateCauses = Map.copyOf(duplicateCauses);
        reorderedSample = List.copyOf(reorderedSample);
    }

    /**
     * The one-line summary: {@code events N, faults F, lost 0, phantom 0, reordered 0 (of E events, K keys, I
     * written after a higher transaction id), duplicates D, stuck 0} ({@code reordered n/a} when order was not
     * checked).
     */
    public String summaryLine() {
        return "events " + events + ", faults " + faults + ", lost " + lost + ", phantom " + phantom + ", reordered "
                + (reordered.isPresent()
                        ? reordered.getAsLong() + " (of " + orderChecked + " events, " + orderedKeys + " keys, "
                                + writtenAfterHigherId + " written after a higher transaction id)"
                        : "n/a")
                + ", duplicates " + duplicates + ", stuck " + stuck;
    }

    /** Whether every guarantee held: nothing lost, phantom, reordered, stuck or dead-lettered, every duplicate explained. */
    public boolean passed() {
        return lost == 0
                && phantom == 0
                && reordered.orElse(0) == 0
                && stuck == 0
                && pending == 0
                && deadLettered == 0
                && unexplainedDuplicates == 0;
    }

    /** The details behind the summary line, for the log. */
    public String details() {
        return "committed " + events + ", rolled back " + rolledBack + ", faults by kind " + faultsByKind
                + ", duplicates " + duplicates + " (unexplained " + unexplainedDuplicates + "; by cause "
                + new java.util.TreeMap<>(duplicateCauses) + "), lease-lost marks "
                + leaseLost + (unexplainedSample.isEmpty() ? "" : " (unexplained e.g. " + unexplainedSample + ")")
                + ", pending " + pending + ", dead-lettered " + deadLettered + ", per-key order "
                + (reordered.isPresent() ? "checked" : "not checked (ordering NONE)")
                + (reorderedSample.isEmpty() ? "" : "; reordered e.g. " + reorderedSample);
    }
}
