package dev.outboxjava.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.memory.InMemoryOutboxStore;
import dev.outboxjava.core.port.PublishOutcome;
import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.core.relay.RelayConfig;
import dev.outboxjava.testkit.FaultyPublisher;
import dev.outboxjava.testkit.RecordingPublisher;
import dev.outboxjava.worker.internal.LogCapture;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The outbox worker's shutdown")
class OutboxWorkerShutdownTest {

    private static final Duration SHUTDOWN_TIMEOUT = Duration.ofMillis(300);
    /** What the standalone process promises past the shutdown timeout, JVM exit included. */
    private static final Duration PROMISED_GRACE = Duration.ofSeconds(2);

    private final InMemoryOutboxStore store = new InMemoryOutboxStore();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private OutboxWorker worker;

    @AfterEach
    void stop() {
        if (worker != null) {
            worker.close();
        }
    }

    private OutboxWorker worker(Publisher publisher, Duration shutdownTimeout) {
        worker = OutboxWorker.builder()
                .store(store)
                .publisher(publisher)
                .meterRegistry(registry)
                .config(OutboxWorkerConfig.builder()
                        .relay(new RelayConfig(50, Duration.ofSeconds(30)))
                        .pollInterval(Duration.ofHours(1))
                        .sweepInterval(Duration.ofHours(1))
                        .shutdownTimeout(shutdownTimeout)
                        .build())
                .build();
        return worker;
    }

    private void append(int count) {
        List<OutboxEvent> events = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            events.add(OutboxEvent.builder()
                    .type("order.placed")
                    .destination("orders")
                    .payload("{}".getBytes(StandardCharsets.UTF_8))
                    .build());
        }
        store.append(events);
    }

    private long count(EventStatus status) {
        return store.countByStatus().get(status);
    }

    @Test
    @DisplayName("gives up a batch the broker never answers: back to pending untried, counted as released, "
            + "never as a lost lease")
    void abandonedBatchIsReleasedNotLost() {
        FaultyPublisher frozen =
                FaultyPublisher.wrapping(new RecordingPublisher()).hang();
        append(70); // a full batch in flight, and the pipelined second one
        worker(frozen, SHUTDOWN_TIMEOUT).start();
        await().atMost(Duration.ofSeconds(10)).until(() -> frozen.hungBatchCount() == 2);

        try (LogCapture relayLog = new LogCapture("dev.outboxjava.core.relay.Relay")) {
            worker.close();

            assertThat(relayLog.atLeast(Level.WARN)).noneMatch(line -> line.contains("lease lost"));
        }
        assertThat(count(EventStatus.IN_FLIGHT)).isZero();
        assertThat(count(EventStatus.PENDING)).isEqualTo(70);
        assertThat(store.all()).allSatisfy(event -> {
            assertThat(event.attempts()).as("no attempt spent").isZero();
            assertThat(event.lastError()).isEmpty();
        });
        assertThat(registry.counter("outbox.events.lease_lost").count()).isZero();
        assertThat(registry.counter("outbox.events.failed", "reason", "retryable")
                        .count())
                .isZero();
        assertThat(registry.counter("outbox.events.released").count()).isEqualTo(70);
    }

    @Test
    @DisplayName("hands the publisher what is left of the shutdown timeout, not its own close timeout on top")
    void publisherClosesWithinTheSameBudget() {
        BudgetRecordingPublisher publisher = new BudgetRecordingPublisher();
        worker(publisher, Duration.ofSeconds(5)).start();

        worker.close();

        assertThat(publisher.budgets)
                .singleElement()
                .satisfies(budget -> assertThat(budget).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(5)));
    }

    @Test
    @DisplayName("when the loops used the whole shutdown timeout, the publisher gets a short rest, not a new timeout")
    void publisherGetsTheRestAfterAnAbandonedBatch() {
        BudgetRecordingPublisher publisher = new BudgetRecordingPublisher().hangPublishes();
        append(5);
        worker(publisher, SHUTDOWN_TIMEOUT).start();
        await().atMost(Duration.ofSeconds(10)).until(() -> publisher.publishes.size() == 1);

        worker.close();

        assertThat(publisher.budgets)
                .singleElement()
                .satisfies(budget -> assertThat(budget).isPositive().isLessThanOrEqualTo(Duration.ofMillis(1500)));
        assertThat(count(EventStatus.PENDING)).isEqualTo(5);
    }

    @Test
    @DisplayName("returns within the shutdown timeout plus the promised grace even when the broker never answers and "
            + "the publisher's close hangs")
    void boundedWhateverThePublisherDoes() {
        BudgetRecordingPublisher publisher =
                new BudgetRecordingPublisher().hangPublishes().hangClose();
        append(5);
        worker(publisher, SHUTDOWN_TIMEOUT).start();
        await().atMost(Duration.ofSeconds(10)).until(() -> publisher.publishes.size() == 1);

        long started = System.nanoTime();
        worker.close();
        Duration took = Duration.ofNanos(System.nanoTime() - started);

        assertThat(took).isLessThan(SHUTDOWN_TIMEOUT.plus(PROMISED_GRACE));
        assertThat(count(EventStatus.IN_FLIGHT)).isZero();
        publisher.closing.countDown();
    }

    /** Records the budget of each close; can hang its publishes (a frozen broker) and its close. */
    private static final class BudgetRecordingPublisher implements Publisher {
        final List<Duration> budgets = new CopyOnWriteArrayList<>();
        final List<CompletableFuture<List<PublishOutcome>>> publishes = new CopyOnWriteArrayList<>();
        final CountDownLatch closing = new CountDownLatch(1);
        private final RecordingPublisher recording = new RecordingPublisher();
        private volatile boolean hangPublishes;
        private volatile boolean hangClose;

        BudgetRecordingPublisher hangPublishes() {
            hangPublishes = true;
            return this;
        }

        BudgetRecordingPublisher hangClose() {
            hangClose = true;
            return this;
        }

        @Override
        public CompletableFuture<List<PublishOutcome>> publish(List<OutboxEvent> batch, Duration timeout) {
            CompletableFuture<List<PublishOutcome>> future =
                    hangPublishes ? new CompletableFuture<>() : recording.publish(batch, timeout);
            publishes.add(future);
            return future;
        }

        @Override
        public HealthCheck checkHealth() {
            return HealthCheck.up("test");
        }

        @Override
        public void close() {
            close(Duration.ofDays(1));
        }

        @Override
        public void close(Duration timeout) {
            budgets.add(timeout);
            if (hangClose) {
                try {
                    closing.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }
}
