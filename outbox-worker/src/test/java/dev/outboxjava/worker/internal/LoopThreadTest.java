package dev.outboxjava.worker.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("A loop thread")
class LoopThreadTest {

    /** Fails once with a long outage backoff whose probe answers {@code back}, then counts its steps. */
    private static final class OutageStep implements LoopStep {
        final AtomicBoolean back = new AtomicBoolean();
        final AtomicInteger steps = new AtomicInteger();
        final AtomicInteger probes = new AtomicInteger();

        @Override
        public Next step() {
            if (steps.incrementAndGet() == 1) {
                return Next.backoff(Duration.ofMinutes(10), Duration.ofMillis(20), () -> {
                    probes.incrementAndGet();
                    return back.get();
                });
            }
            return Next.idle(Duration.ofMinutes(10));
        }

        @Override
        public String name() {
            return "outage-test";
        }
    }

    @Test
    @DisplayName("ends a long outage backoff as soon as its probe finds the dependency back")
    void endsTheBackoffWhenTheProbeSaysTheDependencyIsBack() throws InterruptedException {
        OutageStep step = new OutageStep();
        WakeUpSignal wakeUp = new WakeUpSignal();
        LoopThread loop = new LoopThread(step, wakeUp);
        loop.start();
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> step.probes.get() >= 3);
            assertThat(step.steps.get())
                    .as("still backing off while the dependency is down")
                    .isEqualTo(1);

            step.back.set(true);

            await().atMost(Duration.ofSeconds(10)).until(() -> step.steps.get() == 2);
        } finally {
            loop.requestStop();
            assertThat(loop.join(Duration.ofSeconds(10))).isTrue();
        }
    }

    @Test
    @DisplayName("a stop request ends a probing backoff at once")
    void stopEndsTheBackoff() throws InterruptedException {
        OutageStep step = new OutageStep();
        LoopThread loop = new LoopThread(step, new WakeUpSignal());
        loop.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> step.probes.get() >= 1);

        loop.requestStop();

        assertThat(loop.join(Duration.ofSeconds(10))).isTrue();
        assertThat(step.steps.get()).isEqualTo(1);
    }

    @Test
    @DisplayName("a stop request interrupts a probe that blocks (a dependency that does not answer)")
    void stopInterruptsABlockingProbe() throws InterruptedException {
        CountDownLatch probing = new CountDownLatch(1);
        CountDownLatch never = new CountDownLatch(1);
        AtomicInteger steps = new AtomicInteger();
        LoopThread loop = new LoopThread(
                new LoopStep() {
                    @Override
                    public Next step() {
                        steps.incrementAndGet();
                        return Next.backoff(Duration.ofMinutes(10), Duration.ofMillis(10), () -> {
                            probing.countDown();
                            try {
                                never.await(); // like a connection attempt to a host that does not answer
                                return true;
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                                return false;
                            }
                        });
                    }

                    @Override
                    public String name() {
                        return "blocking-probe-test";
                    }
                },
                new WakeUpSignal());
        loop.start();
        assertThat(probing.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();

        loop.requestStop();

        assertThat(loop.join(Duration.ofSeconds(10)))
                .as("the loop ends without waiting for the probe")
                .isTrue();
        assertThat(steps.get()).isEqualTo(1);
    }
}
