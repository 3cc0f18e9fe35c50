package dev.outboxjava.testkit;

import static dev.outboxjava.testkit.TestEvents.event;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.PublishOutcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("RecordingPublisher")
class RecordingPublisherTest {

    private final RecordingPublisher publisher = new RecordingPublisher();

    @Test
    @DisplayName("acknowledges every event of a batch at once, one outcome per event")
    void acknowledgesAll() {
        List<OutboxEvent> batch = List.of(event("order.placed", "o-1"), event("order.paid", "o-1"));

        List<PublishOutcome> outcomes =
                publisher.publish(batch, Duration.ofSeconds(1)).join();

        assertThat(outcomes)
                .containsExactly(
                        PublishOutcome.published(batch.get(0).id()),
                        PublishOutcome.published(batch.get(1).id()));
    }

    @Test
    @DisplayName("records events in publish order across batches, repeats included")
    void recordsInOrder() {
        OutboxEvent first = event("order.placed", "o-1");
        OutboxEvent second = event("order.placed", "o-2");
        publisher.publish(List.of(first, second), Duration.ofSeconds(1)).join();
        publisher.publish(List.of(first), Duration.ofSeconds(1)).join();

        assertThat(publisher.publishedIds()).containsExactly(first.id(), second.id(), first.id());
        assertThat(publisher.timesPublished(first.id())).isEqualTo(2);
        assertThat(publisher.size()).isEqualTo(3);
        assertThat(publisher.batchCount()).isEqualTo(2);
    }

    @Test
    @DisplayName("answers queries by type and by key")
    void queries() {
        OutboxEvent placed = event("order.placed", "o-1");
        OutboxEvent paid = event("order.paid", "o-1");
        OutboxEvent other = event("order.placed", "o-2");
        OutboxEvent unkeyed = event("stock.counted", null);
        publisher
                .publish(List.of(placed, paid, other, unkeyed), Duration.ofSeconds(1))
                .join();

        assertThat(publisher.ofType("order.placed")).containsExactly(placed, other);
        assertThat(publisher.withKey("o-1")).containsExactly(placed, paid);
        assertThat(publisher.published(e -> e.key().isEmpty())).containsExactly(unkeyed);
    }

    @Test
    @DisplayName("forgets everything on clear")
    void clear() {
        publisher
                .publish(List.of(event("order.placed", "o-1")), Duration.ofSeconds(1))
                .join();

        publisher.clear();

        assertThat(publisher.published()).isEmpty();
        assertThat(publisher.batchCount()).isZero();
    }

    @Test
    @DisplayName("loses nothing when many threads publish at once")
    void threadSafe() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> done = new ArrayList<>();
            List<OutboxEvent> all = IntStream.range(0, 2_000)
                    .mapToObj(n -> event("order.placed", "o-" + n))
                    .toList();
            for (int thread = 0; thread < 8; thread++) {
                List<OutboxEvent> share = all.subList(thread * 250, (thread + 1) * 250);
                done.add(pool.submit(() -> share.forEach(e ->
                        publisher.publish(List.of(e), Duration.ofSeconds(1)).join())));
            }
            for (Future<?> future : done) {
                future.get();
            }
            assertThat(publisher.publishedIds())
                    .hasSize(2_000)
                    .containsExactlyInAnyOrderElementsOf(
                            all.stream().map(OutboxEvent::id).toList());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    @DisplayName("once closed, is unhealthy, records nothing and fails every publish retryably")
    void closing() {
        publish(event("order.placed", "o-1"));
        assertThat(publisher.checkHealth().healthy()).isTrue();

        publisher.close();
        OutboxEvent late = event("order.placed", "o-2");
        List<PublishOutcome> outcomes =
                publisher.publish(List.of(late), Duration.ofSeconds(1)).join();

        assertThat(publisher.isClosed()).isTrue();
        assertThat(publisher.checkHealth().healthy()).isFalse();
        assertThat(outcomes).containsExactly(PublishOutcome.failed(late.id(), "recording publisher is closed", true));
        assertThat(publisher.size()).as("the recording stays readable").isEqualTo(1);
    }

    private void publish(OutboxEvent event) {
        publisher.publish(List.of(event), Duration.ofSeconds(1)).join();
    }
}
