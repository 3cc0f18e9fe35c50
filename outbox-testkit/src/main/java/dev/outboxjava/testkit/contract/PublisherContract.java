package dev.outboxjava.testkit.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.PublishOutcome;
import dev.outboxjava.core.port.Publisher;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link Publisher} must have, checked against a real broker. An adapter adopts
 * it by extending this class:
 *
 * <pre>{@code
 * class MyPublisherContractIT extends PublisherContract {
 *     protected Publisher publisher() { ... }                    // one instance for the test class is fine
 *     protected String newDestination() { ... }                  // a fresh topic / exchange (+ queue) per call
 *     protected List<ReceivedMessage> consume(String destination, int expected, Duration timeout) { ... }
 * }
 * }</pre>
 */
public abstract class PublisherContract {

    /** How long a batch may take to be acknowledged in these tests. */
    protected static final Duration PUBLISH_TIMEOUT = Duration.ofSeconds(30);

    /** The publisher under test, connected to a reachable broker. */
    protected abstract Publisher publisher();

    /** Creates an isolated destination (topic, or exchange bound to a queue that takes every routing key). */
    protected abstract String newDestination();

    /**
     * Reads what arrived at {@code destination}, waiting until {@code expected} messages arrived or the
     * timeout passed (then returns what arrived), in arrival order.
     */
    protected abstract List<ReceivedMessage> consume(String destination, int expected, Duration timeout);

    /** A routing key to publish with (RabbitMQ); default {@code "outbox.test"}. */
    protected String routingKey() {
        return "outbox.test";
    }

    private OutboxEvent event(String destination, String key, int n) {
        OutboxEvent.Builder builder = OutboxEvent.builder().type("order.placed").source("/contract-test")
                .destination(destination).routingKey(routingKey())
                .payload(("{\"n\":" + n + "}").getBytes(StandardCharsets.UTF_8)).header("sequence", "" + n);
        if (key != null) {
            builder.key(key);
        }
        return builder.build();
    }

    private List<PublishOutcome> publish(List<OutboxEvent> batch) throws Exception {
        return publisher().publish(batch, PUBLISH_TIMEOUT).get(PUBLISH_TIMEOUT.toSeconds() + 10, TimeUnit.SECONDS);
    }

    @Nested
    @DisplayName("acknowledgements")
    class Acknowledgements {

        @Test
        @DisplayName("every event of a batch to a reachable destination is acknowledged, one outcome each")
        void allPublished() throws Exception {
            String destination = newDestination();
            List<OutboxEvent> batch = IntStream.range(0, 20).mapToObj(n -> event(destination, "k" + (n % 3), n))
                    .toList();

            List<PublishOutcome> outcomes = publish(batch);

            assertThat(outcomes).hasSize(batch.size()).allSatisfy(
                    outcome -> assertThat(outcome).isInstanceOf(PublishOutcome.Published.class));
            assertThat(outcomes).extracting(PublishOutcome::eventId)
                    .containsExactlyInAnyOrderElementsOf(batch.stream().map(OutboxEvent::id).toList());
        }

        @Test
        @DisplayName("an empty batch completes with no outcomes")
        void emptyBatch() throws Exception {
            assertThat(publish(List.of())).isEmpty();
        }

        @Test
        @DisplayName("a reachable broker reports itself healthy")
        void healthy() {
            assertThat(publisher().checkHealth().healthy()).isTrue();
        }
    }

    @Nested
    @DisplayName("what a consumer reads")
    class OnTheWire {

        @Test
        @DisplayName("every acknowledged event is readable with id, type, source, key, content type, headers and payload intact")
        void attributesIntact() throws Exception {
            String destination = newDestination();
            OutboxEvent withKey = OutboxEvent.builder().type("order.placed").source("/orders-service").key("order-7")
                    .destination(destination).routingKey(routingKey()).contentType("application/json")
                    .payload("{\"total\":12.5}".getBytes(StandardCharsets.UTF_8)).header("tenant", "acme")
                    .header("trace.id", "t-1").build();
            OutboxEvent withoutKey = OutboxEvent.builder().type("stock.reserved").source("/stock")
                    .destination(destination).routingKey(routingKey()).contentType("application/octet-stream")
                    .payload(new byte[] {1, 2, 3}).build();

            publish(List.of(withKey, withoutKey));
            Map<String, ReceivedMessage> received = consume(destination, 2, Duration.ofSeconds(30)).stream()
                    .collect(Collectors.toMap(ReceivedMessage::id, Function.identity()));

            assertThat(received).containsOnlyKeys(withKey.id().toString(), withoutKey.id().toString());
            ReceivedMessage first = received.get(withKey.id().toString());
            assertThat(first.type()).isEqualTo("order.placed");
            assertThat(first.source()).isEqualTo("/orders-service");
            assertThat(first.key()).contains("order-7");
            assertThat(first.contentType()).startsWith("application/json");
            assertThat(first.headers()).containsEntry("tenant", "acme").containsEntry("trace.id", "t-1");
            assertThat(new String(first.payload(), StandardCharsets.UTF_8)).isEqualTo("{\"total\":12.5}");
            ReceivedMessage second = received.get(withoutKey.id().toString());
            assertThat(second.type()).isEqualTo("stock.reserved");
            assertThat(second.key()).isEmpty();
            assertThat(second.payload()).containsExactly(1, 2, 3);
        }

        @Test
        @DisplayName("events of one key arrive in the order of the batch, each exactly once")
        void perKeyOrder() throws Exception {
            String destination = newDestination();
            List<OutboxEvent> batch = IntStream.range(0, 60).mapToObj(n -> event(destination, "key-" + (n % 2), n))
                    .toList();

            publish(batch);
            List<ReceivedMessage> received = consume(destination, batch.size(), Duration.ofSeconds(30));

            assertThat(received).extracting(ReceivedMessage::id).doesNotHaveDuplicates()
                    .containsExactlyInAnyOrderElementsOf(batch.stream().map(e -> e.id().toString()).toList());
            for (String key : Set.of("key-0", "key-1")) {
                List<Integer> order = received.stream().filter(m -> m.key().orElse("").equals(key))
                        .map(m -> Integer.parseInt(m.headers().get("sequence"))).toList();
                assertThat(order).as("arrival order of %s", key).isSorted();
            }
        }

        @Test
        @DisplayName("the event id is the message id a consumer deduplicates by")
        void idIsStable() throws Exception {
            String destination = newDestination();
            OutboxEvent event = event(destination, "k", 1);
            publish(List.of(event));
            publish(List.of(event));
            List<ReceivedMessage> received = consume(destination, 2, Duration.ofSeconds(30));
            assertThat(received).extracting(ReceivedMessage::id).containsExactly(event.id().toString(),
                    event.id().toString());
            assertThat(UUID.fromString(received.get(0).id())).isEqualTo(event.id());
        }
    }
}
