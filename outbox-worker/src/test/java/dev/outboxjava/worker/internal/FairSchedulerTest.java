package dev.outboxjava.worker.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The fair scheduler of a worker of many outboxes")
class FairSchedulerTest {

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final FairScheduler<String> scheduler = new FairScheduler<>(
            Duration.ofSeconds(1),
            Duration.ofSeconds(8),
            new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(30)),
            nanos::get);

    /** One thread's turns: take, step with the given outcome for the item (a full batch unless named), give back. */
    private List<String> turns(int count, Map<String, FairScheduler.Outcome> outcomes) {
        List<String> taken = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            FairScheduler.Slot<String> slot = scheduler.tryTake(nanos.get());
            if (slot == null) {
                taken.add("-");
                continue;
            }
            taken.add(slot.item());
            scheduler.done(slot, outcomes.getOrDefault(slot.item(), FairScheduler.Outcome.FULL));
        }
        return taken;
    }

    @Test
    @DisplayName("given three outboxes with a backlog each, when one thread takes turns, then each gets one in turn")
    void roundRobin() {
        scheduler.add("a", 1);
        scheduler.add("b", 1);
        scheduler.add("c", 1);

        assertThat(turns(9, Map.of())).containsExactly("a", "b", "c", "a", "b", "c", "a", "b", "c");
    }

    @Test
    @DisplayName("given weights 3 and 1 with a backlog each, then the heavier gets three batches for every one")
    void weighted() {
        scheduler.add("heavy", 3);
        scheduler.add("light", 1);

        List<String> taken = turns(40, Map.of());

        assertThat(taken.stream().filter("heavy"::equals).count()).isEqualTo(30);
        assertThat(taken.stream().filter("light"::equals).count()).isEqualTo(10);
    }

    @Test
    @DisplayName("given a failing outbox, then it waits out its own backoff while the others keep their turns")
    void failingBackedOffAlone() {
        FairScheduler.Slot<String> bad = scheduler.add("bad", 1);
        scheduler.add("good", 1);

        List<String> taken = turns(6, Map.of("bad", FairScheduler.Outcome.FAILED));

        assertThat(taken).containsExactly("bad", "good", "good", "good", "good", "good");
        assertThat(scheduler.isBackingOff(bad)).isTrue();
        nanos.addAndGet(Duration.ofSeconds(2).toNanos());
        assertThat(turns(2, Map.of("bad", FairScheduler.Outcome.FULL))).contains("bad");
        assertThat(scheduler.isBackingOff(bad)).isFalse();
    }

    @Test
    @DisplayName("given an outbox that keeps finding nothing, then its polls back off from the poll interval up to"
            + " the maximum, and a wake-up brings it back at once")
    void idleBackoffAndWake() {
        FairScheduler.Slot<String> idle = scheduler.add("idle", 1);
        Map<String, FairScheduler.Outcome> empty = Map.of("idle", FairScheduler.Outcome.EMPTY);
        List<Long> waits = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            assertThat(turns(1, empty)).containsExactly("idle");
            long start = nanos.get();
            while (scheduler.tryTake(nanos.get()) == null) {
                nanos.addAndGet(Duration.ofMillis(100).toNanos());
            }
            scheduler.done(idle, FairScheduler.Outcome.SHORT);
            waits.add(Duration.ofNanos(nanos.get() - start).toSeconds());
            nanos.addAndGet(FairScheduler.AFTER_SHORT_BATCH.toNanos());
        }
        assertThat(waits).as("a short batch resets the idle wait").containsExactly(1L, 1L, 1L, 1L, 1L, 1L);

        turns(1, empty); // waits 1 s
        nanos.addAndGet(Duration.ofSeconds(1).toNanos());
        turns(1, empty); // waits 2 s
        nanos.addAndGet(Duration.ofSeconds(2).toNanos());
        turns(1, empty); // waits 4 s
        nanos.addAndGet(Duration.ofSeconds(4).toNanos());
        turns(1, empty); // waits 8 s, the maximum
        nanos.addAndGet(Duration.ofSeconds(8).toNanos());
        turns(1, empty); // waits 8 s again
        nanos.addAndGet(Duration.ofSeconds(7).toNanos());
        assertThat(scheduler.tryTake(nanos.get())).as("not due before its 8 s").isNull();

        scheduler.wake(idle);
        assertThat(scheduler.tryTake(nanos.get())).isSameAs(idle);
    }

    @Test
    @DisplayName("given two threads and two outboxes with work, then each thread takes a different outbox")
    void fewestThreadsFirst() throws Exception {
        scheduler.add("a", 1);
        scheduler.add("b", 1);

        FairScheduler.Slot<String> first = scheduler.take();
        FairScheduler.Slot<String> second = scheduler.take();

        assertThat(first.item()).isNotEqualTo(second.item());
        FairScheduler.Slot<String> third = scheduler.take();
        assertThat(third)
                .as("with every outbox busy, a third thread helps one of them")
                .isNotNull();
    }

    @Test
    @DisplayName("given a retired outbox, then it is never handed out again, and its last step says to let it go")
    void retired() throws Exception {
        FairScheduler.Slot<String> gone = scheduler.add("gone", 1);
        scheduler.add("stays", 1);
        FairScheduler.Slot<String> under = scheduler.take();
        assertThat(under).isSameAs(gone);

        assertThat(scheduler.retire(gone)).as("a step is under way").isFalse();
        assertThat(scheduler.done(gone, FairScheduler.Outcome.FULL)).isTrue();

        Map<String, Integer> counts = new HashMap<>();
        for (String item : turns(5, Map.of())) {
            counts.merge(item, 1, Integer::sum);
        }
        assertThat(counts).containsOnlyKeys("stays");
    }
}
