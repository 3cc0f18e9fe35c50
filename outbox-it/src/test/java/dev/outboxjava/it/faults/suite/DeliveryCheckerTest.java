package dev.outboxjava.it.faults.suite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.it.faults.DeliveryChecker;
import dev.outboxjava.it.faults.FaultKind;
import dev.outboxjava.it.faults.FaultReport;
import dev.outboxjava.it.faults.InjectedFault;
import dev.outboxjava.it.faults.OutboxTableProbe.StoredEvent;
import dev.outboxjava.it.faults.ProducerLedger;
import dev.outboxjava.testkit.contract.ReceivedMessage;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The checker itself: each guarantee it reports is counted the way its Javadoc says. */
@DisplayName("The fault checker")
class DeliveryCheckerTest {

    private final ProducerLedger ledger = new ProducerLedger();
    private final Map<UUID, StoredEvent> stored = new HashMap<>();
    private final List<ReceivedMessage> received = new ArrayList<>();
    private final List<InjectedFault> faults =
            List.of(new InjectedFault(FaultKind.RELAY_KILL, "kill", Instant.EPOCH, Duration.ZERO));

    /** An event of a transaction of its own, which committed before the next sequence's began writing. */
    private OutboxEvent committed(String key, long sequence) {
        return committed(key, sequence, 10 * sequence, 10 * sequence + 5);
    }

    private OutboxEvent committed(String key, long sequence, long beganWriting, long committedAt) {
        OutboxEvent event = event(key, sequence);
        ledger.committed(List.of(event), beganWriting, committedAt);
        return event;
    }

    private OutboxEvent event(String key, long sequence) {
        OutboxEvent event = OutboxEvent.builder()
                .type("t")
                .destination("d")
                .key(key)
                .payload(new byte[0])
                .build();
        stored.put(event.id(), new StoredEvent(Optional.of(key), sequence, EventStatus.SENT, 0));
        return event;
    }

    private void deliver(OutboxEvent event) {
        deliver(event.id());
    }

    private void deliver(UUID id) {
        received.add(new ReceivedMessage(
                id.toString(), "t", "/outbox", Optional.of("k"), "application/json", Map.of(), new byte[0]));
    }

    private FaultReport check(Set<UUID> exposed, boolean perKey) {
        Map<UUID, FaultKind> exposure = new HashMap<>();
        exposed.forEach(id -> exposure.put(id, FaultKind.RELAY_KILL));
        return DeliveryChecker.check(ledger, received, stored, exposure, Set.of(), faults, perKey);
    }

    @Test
    @DisplayName("all delivered once: the summary line reads zeros")
    void clean() {
        deliver(committed("a", 1));
        deliver(committed("a", 2));
        FaultReport report = check(Set.of(), true);
        assertThat(report.summaryLine())
                .isEqualTo(
                        "events 2, faults 1, lost 0, phantom 0, reordered 0 (of 2 events, 1 keys, 0 written after a higher "
                                + "transaction id), duplicates 0, stuck 0");
        assertThat(report.passed()).isTrue();
    }

    @Test
    @DisplayName("a committed event never delivered is lost; a rolled-back one delivered is phantom")
    void lostAndPhantom() {
        committed("a", 1);
        OutboxEvent rolledBack = OutboxEvent.builder()
                .type("t")
                .destination("d")
                .payload(new byte[0])
                .build();
        ledger.rolledBack(List.of(rolledBack));
        deliver(rolledBack);
        deliver(UUID.randomUUID());
        FaultReport report = check(Set.of(), false);
        assertThat(report.lost()).isEqualTo(1);
        assertThat(report.phantom()).isEqualTo(2);
        assertThat(report.passed()).isFalse();
    }

    @Test
    @DisplayName("a commit of unknown outcome counts as committed when its row exists, rolled back when not")
    void uncertainCommit() {
        OutboxEvent landed = OutboxEvent.builder()
                .type("t")
                .destination("d")
                .payload(new byte[0])
                .build();
        OutboxEvent vanished = OutboxEvent.builder()
                .type("t")
                .destination("d")
                .payload(new byte[0])
                .build();
        ledger.uncertain(List.of(landed, vanished));
        stored.put(landed.id(), new StoredEvent(Optional.empty(), 1, EventStatus.SENT, 0));
        deliver(landed);
        FaultReport report = check(Set.of(), false);
        assertThat(report.events()).isEqualTo(1);
        assertThat(report.rolledBack()).isEqualTo(1);
        assertThat(report.lost()).isZero();
    }

    @Test
    @DisplayName("per-key order is judged on first deliveries: a late duplicate is fine, a later event first is not")
    void orderOnFirstDeliveries() {
        OutboxEvent first = committed("a", 1);
        OutboxEvent second = committed("a", 2);
        OutboxEvent third = committed("a", 3);
        deliver(first);
        deliver(third);
        deliver(first); // a late duplicate: not a reordering
        deliver(second); // after the third: reordered
        FaultReport report = check(Set.of(first.id()), true);
        assertThat(report.reordered()).hasValue(1);
        assertThat(report.duplicates()).isEqualTo(1);
        assertThat(report.unexplainedDuplicates()).isZero();
        assertThat(check(Set.of(first.id()), false).reordered()).isEmpty();
    }

    @Test
    @DisplayName("per-key order binds events whose writes happened one after the other: the same transaction, or one "
            + "committed before the other began writing; overlapping transactions may come in either order")
    void orderFollowsHappenedBefore() {
        OutboxEvent fromB = event("a", 2); // B began writing first ...
        OutboxEvent fromA = committed("a", 1, 20, 40); // ... A, overlapping it, took the earlier sequence
        ledger.committed(List.of(fromB), 10, 30);
        OutboxEvent inB1 = event("b", 3);
        OutboxEvent inB2 = event("b", 4);
        ledger.committed(List.of(inB1, inB2), 50, 60);
        OutboxEvent after = committed("c", 6, 70, 80);
        OutboxEvent before = committed("c", 5, 61, 65);
        deliver(fromB);
        deliver(fromA); // overlapping transactions: either order
        deliver(inB2);
        deliver(inB1); // the same transaction: reordered
        deliver(after);
        deliver(before); // committed before the other began writing: reordered
        assertThat(check(Set.of(), true).reordered()).hasValue(2);
    }

    @Test
    @DisplayName("with write versions, per-key order is the key's write order: a transaction that began first and "
            + "locked another aggregate first, then waited for the key, must come after the writer it waited for")
    void orderFollowsWriteVersions() {
        // B locks key "b" first, then waits for "a", which A (beginning later, overlapping B) locked and wrote
        OutboxEvent fromA = event("a", 1);
        ledger.wrote(fromA.id(), 1, 101);
        ledger.committed(List.of(fromA), 20, 40);
        OutboxEvent fromB = event("a", 2);
        ledger.wrote(fromB.id(), 2, 100);
        OutboxEvent otherOfB = event("b", 3);
        ledger.wrote(otherOfB.id(), 1, 100);
        ledger.committed(List.of(otherOfB, fromB), 10, 50);
        deliver(otherOfB);
        deliver(fromB);
        deliver(fromA); // version 1 after version 2: reordered, though the two transactions overlapped
        FaultReport report = check(Set.of(), true);
        assertThat(report.reordered()).hasValue(1);
        assertThat(report.orderChecked()).isEqualTo(3);
        assertThat(report.orderedKeys()).isEqualTo(2);
        assertThat(report.writtenAfterHigherId())
                .as("B's event of key a, after A's")
                .isEqualTo(1);
        assertThat(report.reorderedSample()).singleElement().asString().contains("version 1", "version 2");
        assertThat(ledger.committedTransactionsByKeys()).containsExactly(Map.entry(1, 1L), Map.entry(2, 1L));
    }

    @Test
    @DisplayName("with write versions, the sequence does not decide: versions in order pass whatever the sequences")
    void writeVersionsOverSequence() {
        OutboxEvent first = event("a", 7); // the lower version took the higher sequence
        ledger.wrote(first.id(), 1);
        ledger.committed(List.of(first), 10, 20);
        OutboxEvent second = event("a", 3);
        ledger.wrote(second.id(), 2);
        ledger.committed(List.of(second), 30, 40);
        deliver(first);
        deliver(second);
        deliver(first); // a late duplicate
        assertThat(check(Set.of(first.id()), true).reordered()).hasValue(0);
    }

    @Test
    @DisplayName(
            "a duplicate is unexplained unless the event was in flight at a fault, lease-lost, or failed and retried")
    void unexplainedDuplicate() {
        OutboxEvent event = committed("a", 1);
        deliver(event);
        deliver(event);
        assertThat(check(Set.of(), false).unexplainedDuplicates()).isEqualTo(1);
        assertThat(DeliveryChecker.check(ledger, received, stored, Map.of(), Set.of(event.id()), faults, false)
                        .unexplainedDuplicates())
                .as("lease-lost")
                .isZero();
        stored.put(event.id(), new StoredEvent(Optional.of("a"), 1, EventStatus.SENT, 1));
        assertThat(check(Set.of(), false).unexplainedDuplicates())
                .as("a failed attempt, retried")
                .isZero();
    }

    @Test
    @DisplayName("an event still in flight at the end is stuck; one still pending is reported as pending")
    void stuck() {
        OutboxEvent inFlight = committed("a", 1);
        OutboxEvent pending = committed("b", 2);
        stored.put(inFlight.id(), new StoredEvent(Optional.of("a"), 1, EventStatus.IN_FLIGHT, 0));
        stored.put(pending.id(), new StoredEvent(Optional.of("b"), 2, EventStatus.PENDING, 0));
        deliver(inFlight);
        deliver(pending);
        FaultReport report = check(Set.of(), false);
        assertThat(report.stuck()).isEqualTo(1);
        assertThat(report.pending()).isEqualTo(1);
        assertThat(report.passed()).isFalse();
    }
}
