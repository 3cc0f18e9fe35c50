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
        assertThat(signal.await(SHORT)).as("the signal was taken on by the first wait").isFalse();
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
        AtomicInteger woken = new AtomicInteger();
        List<CompletableFuture<Boolean>> waits = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            waits.add(CompletableFuture.supplyAsync(() -> awaitQuietly(Duration.ofSeconds(2), woken), threads));
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> signal.waitingThreads() == 3);
        signal.signal();
        CompletableFuture.allOf(waits.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
        assertThat(woken).hasValue(1);
    }

    @Test
    @DisplayName("a signal that comes while a lease statement runs waits for its return, which wakes one thread")
    void signalDuringLease() throws Exception {
        AtomicInteger woken = new AtomicInteger();
        signal.leaseStarting();
        List<CompletableFuture<Boolean>> waits = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            waits.add(CompletableFuture.supplyAsync(() -> awaitQuietly(Duration.ofSeconds(3), woken), threads));
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> signal.waitingThreads() == 2);
        signal.signal();
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> woken.get() == 0);
        signal.leaseReturned();
        await().atMost(Duration.ofSeconds(5)).until(() -> woken.get() == 1);
        CompletableFuture.allOf(waits.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
        assertThat(woken).as("one thread took the signal on, the other timed out").hasValue(1);
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
        AtomicInteger woken = new AtomicInteger();
        signal.leaseStarting();
        CompletableFuture<Boolean> wait = CompletableFuture.supplyAsync(() -> awaitQuietly(LONG, woken), threads);
        await().atMost(Duration.ofSeconds(5)).until(() -> signal.waitingThreads() == 1);
        signal.wantHelp();
        assertThat(wait.get(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    @DisplayName("a thread whose batch came back full wakes one idle sibling")
    void wantHelp() throws Exception {
        AtomicInteger woken = new AtomicInteger();
        CompletableFuture<Boolean> wait = CompletableFuture.supplyAsync(() -> awaitQuietly(LONG, woken), threads);
        await().atMost(Duration.ofSeconds(5)).until(() -> signal.waitingThreads() == 1);
        signal.wantHelp();
        assertThat(wait.get(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    @DisplayName("close ends every wait, now and later")
    void close() throws Exception {
        AtomicInteger woken = new AtomicInteger();
        CompletableFuture<Boolean> first = CompletableFuture.supplyAsync(() -> awaitQuietly(LONG, woken), threads);
        CompletableFuture<Boolean> second = CompletableFuture.supplyAsync(() -> awaitQuietly(LONG, woken), threads);
        await().atMost(Duration.ofSeconds(5)).until(() -> signal.waitingThreads() == 2);
        signal.close();
        assertThat(first.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(second.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(signal.await(LONG)).isTrue();
    }

    private boolean awaitQuietly(Duration timeout, AtomicInteger woken) {
        try {
            boolean signalled = signal.await(timeout);
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
