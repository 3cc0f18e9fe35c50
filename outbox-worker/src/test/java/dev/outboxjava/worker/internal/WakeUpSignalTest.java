package dev.outboxjava.worker.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class WakeUpSignalTest {

    private static final Duration SHORT = Duration.ofMillis(50);
    private static final Duration LONG = Duration.ofSeconds(30);

    private final WakeUpSignal signal = new WakeUpSignal();
    private final ExecutorService threads = Executors.newCachedThreadPool();
    /** How many waits ended for a signal. */
    private final AtomicInteger woken = new AtomicInteger();

    @AfterEach
    void stopThreads() {
        signal.close();
        threads.shutdownNow();
    }

    @Test
    @DisplayName("a signal that arrived before the wait ends it at once (not lost while the thread was busy)")
    void signalBeforeWait() throws InterruptedException {
        signal.signal();
        assertThat(signal.await(LONG)).isTrue();
        assertThat(signal.await(SHORT))
                .as("the signal was taken on by the first wait")
                .isFalse();
    }

    @Test
    @DisplayName("a wait for work under way ends when the work completes, without taking a signal on")
    void waitForWorkEndsWhenItCompletes() throws Exception {
        CompletableFuture<Void> acknowledged = new CompletableFuture<>();
        CompletableFuture<Boolean> wait =
                CompletableFuture.supplyAsync(() -> awaitQuietly(LONG, acknowledged), threads);
        await().atMost(Duration.ofSeconds(10)).until(() -> signal.waitingThreads() == 1);

        acknowledged.complete(null);

        assertThat(wait.get(10, TimeUnit.SECONDS))
                .as("the work, not a signal, ended the wait")
                .isFalse();
        signal.signal();
        assertThat(signal.await(LONG, new CompletableFuture<>()))
                .as("a signal ends a wait for work that is still under way")
                .isTrue();
    }

    @Test
    @DisplayName("a wait for work that has already completed returns at once")
    void waitForCompletedWork() throws InterruptedException {
        assertThat(signal.await(LONG, CompletableFuture.completedFuture(null))).isFalse();
    }

    @Test
    @DisplayName("a signal a lease has already covered does not wake anyone")
    void coveredSignal() throws InterruptedException {
        signal.signal();
        signal.leaseStarting();
        assertThat(signal.await(SHORT)).isFalse();
    }

    @Test
    @DisplayName("one signal wakes one of several idle threads, not all of them")
    void oneSignalOneThread() throws Exception {
        List<CompletableFuture<Boolean>> waits = idleThreads(3, Duration.ofSeconds(2));
        signal.signal();
        allEnded(waits);
        assertThat(woken).hasValue(1);
    }

    @Test
    @DisplayName("a signal that comes while a lease statement runs waits for its return, which wakes one thread")
    void signalDuringLease() throws Exception {
        signal.leaseStarting();
        List<CompletableFuture<Boolean>> waits = idleThreads(2, Duration.ofSeconds(3));
        signal.signal();
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> woken.get() == 0);
        signal.leaseReturned();
        await().atMost(Duration.ofSeconds(5)).until(() -> woken.get() == 1);
        allEnded(waits);
        assertThat(woken)
                .as("one thread took the signal on, the other timed out")
                .hasValue(1);
    }

    @Test
    @DisplayName("a lease's return wakes nobody for signals that lease already covered")
    void coveredSignalAfterLease() throws InterruptedException {
        signal.signal();
        signal.leaseStarting();
        signal.leaseReturned();
        assertThat(signal.await(SHORT)).isFalse();
    }

    @Test
    @DisplayName("help is wanted even while a lease statement runs")
    void helpDuringLease() throws Exception {
        signal.leaseStarting();
        CompletableFuture<Boolean> wait = idleThreads(1, LONG).get(0);
        signal.wantHelp();
        assertThat(wait.get(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    @DisplayName("a thread whose batch came back full wakes one idle sibling")
    void wantHelp() throws Exception {
        CompletableFuture<Boolean> wait = idleThreads(1, LONG).get(0);
        signal.wantHelp();
        assertThat(wait.get(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    @DisplayName("close ends every wait, now and later")
    void close() throws Exception {
        List<CompletableFuture<Boolean>> waits = idleThreads(2, LONG);
        signal.close();
        assertThat(waits.get(0).get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(waits.get(1).get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(signal.await(LONG)).isTrue();
    }

    /** Starts {@code count} threads waiting up to {@code timeout} each; returns once all of them wait. */
    private List<CompletableFuture<Boolean>> idleThreads(int count, Duration timeout) {
        List<CompletableFuture<Boolean>> waits = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            waits.add(CompletableFuture.supplyAsync(() -> awaitQuietly(timeout), threads));
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> signal.waitingThreads() == count);
        return waits;
    }

    private static void allEnded(List<CompletableFuture<Boolean>> waits) throws Exception {
        CompletableFuture.allOf(waits.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
    }

    private boolean awaitQuietly(Duration timeout) {
        return awaitQuietly(timeout, null);
    }

    /** Waits for a signal, or also for {@code work} to complete unless it is null. */
    private boolean awaitQuietly(Duration timeout, CompletableFuture<?> work) {
        try {
            boolean signalled = work == null ? signal.await(timeout) : signal.await(timeout, work);
            if (signalled) {
                woken.incrementAndGet();
            }
            return signalled;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
