package dev.outboxjava.core.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxjava.core.InvalidConfigurationException;
import dev.outboxjava.core.time.ManualClock;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@DisplayName("In-memory inbox")
class InMemoryInboxTest {

    private final ManualClock clock = ManualClock.startingAtEpochOf2024();
    private final InMemoryInbox<InboxKey> inbox = InMemoryInbox.create(clock);
    private final AtomicInteger effects = new AtomicInteger();

    @Test
    @DisplayName("the same message delivered 100 times in a row runs the work once")
    void sequentialDuplicates() {
        List<InboxResult> results = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            results.add(inbox.process("shipping", "m-1", key -> effects.incrementAndGet()));
        }

        assertThat(effects).hasValue(1);
        assertThat(results.get(0)).isEqualTo(InboxResult.PROCESSED);
        assertThat(results.subList(1, 100)).containsOnly(InboxResult.DUPLICATE);
        assertThat(inbox.isProcessed("shipping", "m-1")).isTrue();
    }

    @Test
    @Timeout(30)
    @DisplayName("the same message delivered 100 times from 8 threads at once runs the work once")
    void concurrentDuplicates() throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<InboxResult>> futures = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                futures.add(pool.submit(() -> {
                    start.await();
                    return inbox.process("shipping", "m-1", key -> effects.incrementAndGet());
                }));
            }
            start.countDown();
            List<InboxResult> results = new ArrayList<>();
            for (Future<InboxResult> future : futures) {
                results.add(future.get());
            }

            assertThat(effects).hasValue(1);
            assertThat(results).filteredOn(InboxResult::processed).hasSize(1);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    @DisplayName("failed work records nothing and its exception reaches the caller unchanged; a redelivery runs it")
    void failureIsNotRecorded() {
        IOException boom = new IOException("disk full");

        assertThatThrownBy(() -> inbox.process("shipping", "m-1", key -> {
                    throw boom;
                }))
                .isSameAs(boom);
        assertThat(inbox.isProcessed("shipping", "m-1")).isFalse();

        assertThat(inbox.process("shipping", "m-1", key -> effects.incrementAndGet()))
                .isEqualTo(InboxResult.PROCESSED);
        assertThat(effects).hasValue(1);
    }

    @Test
    @Timeout(30)
    @DisplayName("a duplicate waiting for a delivery that then fails runs the work itself")
    void waiterTakesOverAfterFailure() throws Exception {
        CountDownLatch firstRunning = new CountDownLatch(1);
        CountDownLatch releaseFirst = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<InboxResult> first = pool.submit(() -> inbox.process("shipping", "m-1", key -> {
                firstRunning.countDown();
                releaseFirst.await();
                throw new IllegalStateException("handler bug");
            }));
            firstRunning.await();
            Thread[] second = new Thread[1];
            Future<InboxResult> duplicate = pool.submit((Callable<InboxResult>) () -> {
                second[0] = Thread.currentThread();
                return inbox.process("shipping", "m-1", key -> effects.incrementAndGet());
            });
            awaitBlocked(second);
            releaseFirst.countDown();

            assertThatThrownBy(first::get).hasCauseInstanceOf(IllegalStateException.class);
            assertThat(duplicate.get()).isEqualTo(InboxResult.PROCESSED);
            assertThat(effects).hasValue(1);
        } finally {
            pool.shutdownNow();
            pool.awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    @Test
    @DisplayName("each consumer processes a message once for itself")
    void consumersAreIndependent() {
        inbox.process("shipping", "m-1", key -> effects.incrementAndGet());
        inbox.process("billing", "m-1", key -> effects.incrementAndGet());

        assertThat(effects).hasValue(2);
        assertThat(inbox.process("billing", "m-1", key -> effects.incrementAndGet()))
                .isEqualTo(InboxResult.DUPLICATE);
    }

    @Test
    @DisplayName("the work receives the key being processed")
    void handleIsTheKey() {
        List<InboxKey> seen = new ArrayList<>();
        inbox.process("shipping", "m-1", seen::add);

        assertThat(seen).containsExactly(new InboxKey("shipping", "m-1"));
    }

    @Test
    @DisplayName(
            "cleanUp deletes the oldest records before the cut-off, at most limit; a duplicate after it runs again")
    void cleanUpWindow() {
        inbox.process("shipping", "old-1", key -> effects.incrementAndGet());
        clock.advance(Duration.ofMinutes(1));
        inbox.process("shipping", "old-2", key -> effects.incrementAndGet());
        clock.advance(Duration.ofDays(1));
        inbox.process("shipping", "recent", key -> effects.incrementAndGet());

        assertThat(inbox.cleanUp(clock.instant().minus(Duration.ofHours(1)), 1)).isEqualTo(1);
        assertThat(inbox.isProcessed("shipping", "old-1")).isFalse();
        assertThat(inbox.isProcessed("shipping", "old-2")).isTrue();
        assertThat(inbox.cleanUp(clock.instant().minus(Duration.ofHours(1)), 10))
                .isEqualTo(1);
        assertThat(inbox.size()).isEqualTo(1);

        // The documented caveat: past the window, a duplicate is not recognised.
        assertThat(inbox.process("shipping", "old-1", key -> effects.incrementAndGet()))
                .isEqualTo(InboxResult.PROCESSED);
        assertThat(effects).hasValue(4);
    }

    @Test
    @DisplayName("a blank or oversized message id is refused as unidentifiable, a blank consumer name as configuration")
    void validation() {
        assertThatThrownBy(() -> inbox.process("shipping", " ", key -> effects.incrementAndGet()))
                .isInstanceOf(UnidentifiableMessageException.class)
                .hasMessageContaining("shipping");
        assertThatThrownBy(() -> inbox.process("shipping", "x".repeat(256), key -> effects.incrementAndGet()))
                .isInstanceOf(UnidentifiableMessageException.class)
                .hasMessageContaining("255");
        assertThatThrownBy(() -> inbox.process("", "m-1", key -> effects.incrementAndGet()))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("inbox.consumerName");
        assertThat(effects).hasValue(0);
    }

    private static void awaitBlocked(Thread[] holder) {
        while (holder[0] == null || holder[0].getState() != Thread.State.BLOCKED) {
            Thread.onSpinWait();
        }
    }
}
