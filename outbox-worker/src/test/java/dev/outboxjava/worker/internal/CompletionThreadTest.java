package dev.outboxjava.worker.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxjava.core.relay.RelayResult;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("A relay thread's completion thread")
class CompletionThreadTest {

    private static final RelayResult DONE = RelayResult.idle(Duration.ofMillis(3));

    private final CompletionThread completions = new CompletionThread("relay-7");

    @AfterEach
    void close() {
        completions.close();
    }

    @Test
    void givenACompletion_whenBegun_thenItRunsOnItsOwnNamedThread_andItsResultIsTakenLater() {
        AtomicReference<String> ranOn = new AtomicReference<>();

        Supplier<RelayResult> result = completions.begin(() -> {
            ranOn.set(Thread.currentThread().getName());
            return DONE;
        });

        assertThat(result.get()).isSameAs(DONE);
        assertThat(ranOn).hasValue("outbox-relay-7-marks");
    }

    @Test
    void givenACompletionThatThrows_whenItsResultIsTaken_thenTheSameFailureIsThrown() {
        IllegalStateException failure = new IllegalStateException("mark failed");

        Supplier<RelayResult> result = completions.begin(() -> {
            throw failure;
        });

        assertThatThrownBy(result::get).isSameAs(failure);
    }

    @Test
    void givenTheWaitingThreadIsInterrupted_thenTheCompletionIsInterrupted_andItsResultStillArrives() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        AtomicBoolean completionInterrupted = new AtomicBoolean();
        Supplier<RelayResult> result = completions.begin(() -> {
            started.countDown();
            try {
                new CompletableFuture<Void>().get(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                completionInterrupted.set(true);
                return DONE;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            return null;
        });
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        AtomicReference<RelayResult> taken = new AtomicReference<>();
        AtomicBoolean stillInterrupted = new AtomicBoolean();
        Thread waiter = new Thread(() -> {
            taken.set(result.get());
            stillInterrupted.set(Thread.currentThread().isInterrupted());
        });

        waiter.start();
        waiter.interrupt();
        waiter.join(TimeUnit.SECONDS.toMillis(20));

        assertThat(completionInterrupted).as("the completion gave up its wait").isTrue();
        assertThat(taken).as("the waiter took the completion's own result").hasValue(DONE);
        assertThat(stillInterrupted).as("the waiter's interrupt is kept").isTrue();
    }

    @Test
    void givenAnInterruptedCompletion_whenTheNextBegins_thenItDoesNotCarryTheInterrupt() {
        Supplier<RelayResult> first = completions.begin(() -> {
            Thread.currentThread().interrupt();
            return DONE;
        });
        assertThat(first.get()).isSameAs(DONE);

        AtomicBoolean interrupted = new AtomicBoolean(true);
        Supplier<RelayResult> second = completions.begin(() -> {
            interrupted.set(Thread.currentThread().isInterrupted());
            return DONE;
        });

        assertThat(second.get()).isSameAs(DONE);
        assertThat(interrupted).isFalse();
    }
}
