package dev.outboxjava.testkit.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.PublishOutcome;
import dev.outboxjava.core.port.Publisher;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
     * timeout passed (then returns what arrived), in arrival order. Each message carries every
     * CloudEvents attribute it arrived with in {@link ReceivedMessage#attributes()}
     * ({@code BrokerMessages} of outbox-testkit-fixtures reads them from Kafka records and AMQP deliveries).
     */
    protected abstract List<ReceivedMessage> consume(String destination, int expected, Duration timeout);

    /** A routing key to publish with (RabbitMQ); default {@code "outbox.test"}. */
    protected String routingKey() {
        return "outbox.test";
    }

    private OutboxEvent event(String destination, String key, int n) {
        OutboxEvent.Builder builder = OutboxEvent.builder()
                .type("order.placed")
                .source("/contract-test")
                .destination(destination)
                .routingKey(routingKey())
                .payload(("{\"n\":" + n + "}").getBytes(StandardCharsets.UTF_8))
                .header("sequence", "" + n);
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
            List<OutboxEvent> batch = IntStream.range(0, 20)
                    .mapToObj(n -> event(destination, "k" + (n % 3), n))
                    .toList();

            List<PublishOutcome> outcomes = publish(batch);

            assertThat(outcomes)
                    .hasSize(batch.size())
                    .allSatisfy(outcome -> assertThat(outcome).isInstanceOf(PublishOutcome.Published.class));
            assertThat(outcomes)
                    .extracting(PublishOutcome::eventId)
                    .containsExactlyInAnyOrderElementsOf(
                            batch.stream().map(OutboxEvent::id).toList());
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
        @DisplayName(
                "every acknowledged event is readable with id, type, source, key, content type, headers and payload intact")
        void attributesIntact() throws Exception {
            String destination = newDestination();
            OutboxEvent withKey = OutboxEvent.builder()
                    .type("order.placed")
                    .source("/orders-service")
                    .key("order-7")
                    .destination(destination)
                    .routingKey(routingKey())
                    .contentType("application/json")
                    .payload("{\"total\":12.5}".getBytes(StandardCharsets.UTF_8))
                    .header("tenant", "acme")
                    .header("trace.id", "t-1")
                    .build();
            OutboxEvent withoutKey = OutboxEvent.builder()
                    .type("stock.reserved")
                    .source("/stock")
                    .destination(destination)
                    .routingKey(routingKey())
                    .contentType("application/octet-stream")
                    .payload(new byte[] {1, 2, 3})
                    .build();

            publish(List.of(withKey, withoutKey));
            Map<String, ReceivedMessage> received = consume(destination, 2, Duration.ofSeconds(30)).stream()
                    .collect(Collectors.toMap(ReceivedMessage::id, Function.identity()));

            assertThat(received)
                    .containsOnlyKeys(withKey.id().toString(), withoutKey.id().toString());
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
            List<OutboxEvent> batch = IntStream.range(0, 60)
                    .mapToObj(n -> event(destination, "key-" + (n % 2), n))
                    .toList();

            publish(batch);
            List<ReceivedMessage> received = consume(destination, batch.size(), Duration.ofSeconds(30));

            assertThat(received)
                    .extracting(ReceivedMessage::id)
                    .doesNotHaveDuplicates()
                    .containsExactlyInAnyOrderElementsOf(
                            batch.stream().map(e -> e.id().toString()).toList());
            for (String key : Set.of("key-0", "key-1")) {
                List<Integer> order = received.stream()
                        .filter(m -> m.key().orElse("").equals(key))
                        .map(m -> Integer.parseInt(m.headers().get("sequence")))
                        .toList();
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
            assertThat(received)
                    .extracting(ReceivedMessage::id)
                    .containsExactly(event.id().toString(), event.id().toString());
            assertThat(UUID.fromString(received.get(0).id())).isEqualTo(event.id());
        }
    }

    @Nested
    @DisplayName("the CloudEvents envelope")
    class Envelope {

        @Test
        @DisplayName(
                "every CloudEvents attribute arrives under its own name, and the event's own headers arrive exactly as appended")
        void everyAttribute() throws Exception {
            String destination = newDestination();
            OutboxEvent event = OutboxEvent.builder()
                    .type("order.placed")
                    .source("/orders-service")
                    .key("order-7")
                    .destination(destination)
                    .routingKey(routingKey())
                    .contentType("application/json")
                    .subject("order/7")
                    .dataSchema("https://schemas.example.com/order/1")
                    .payload("{\"total\":12.5}".getBytes(StandardCharsets.UTF_8))
                    .header("tenant", "acme")
                    .header("trace.id", "t-1")
                    .build();

            assertThat(publish(List.of(event))).singleElement().isInstanceOf(PublishOutcome.Published.class);
            List<ReceivedMessage> received = consume(destination, 1, Duration.ofSeconds(30));

            assertThat(received).hasSize(1);
            Map<String, String> attributes = received.get(0).attributes();
            assertThat(attributes)
                    .containsEntry("id", event.id().toString())
                    .containsEntry("source", "/orders-service")
                    .containsEntry("specversion", "1.0")
                    .containsEntry("type", "order.placed")
                    .containsEntry("subject", "order/7")
                    .containsEntry("dataschema", "https://schemas.example.com/order/1")
                    .containsEntry("partitionkey", "order-7")
                    .containsKeys("time", "datacontenttype");
            assertThat(attributes.get("datacontenttype")).startsWith("application/json");
            assertThat(OffsetDateTime.parse(attributes.get("time")).toInstant()).isEqualTo(event.createdAt());
            assertThat(received.get(0).headers())
                    .as("the event's own headers, none dropped, none added")
                    .containsExactlyInAnyOrderEntriesOf(Map.of("tenant", "acme", "trace.id", "t-1"));
        }
    }

    @Nested
    @DisplayName("events the builder would refuse")
    class AroundTheBuilder {

        private OutboxEvent restored(String destination, String source, Optional<String> dataSchema) {
            Instant now = Instant.now();
            return OutboxEvent.restore()
                    .id(UUID.randomUUID())
                    .type("order.placed")
                    .source(source)
                    .destination(destination)
                    .routingKey(routingKey())
                    .payload("{}".getBytes(StandardCharsets.UTF_8))
                    .dataSchema(dataSchema)
                    .nextAttemptAt(now)
                    .createdAt(now)
                    .build();
        }

        @Test
        @DisplayName(
                "a source that is not a URI reference, or a dataschema that is not an absolute URI, fails the event "
                        + "as not retryable, naming the attribute; the rest of the batch is published")
        void notACloudEvent() throws Exception {
            String destination = newDestination();
            // only a row written without the builder (plain SQL) can carry these; the builder refuses them
            OutboxEvent badSource = restored(destination, "not a uri", Optional.empty());
            OutboxEvent relativeSchema = restored(destination, "/contract-test", Optional.of("schemas/v1.json"));
            OutboxEvent good = event(destination, null, 1);

            Map<UUID, PublishOutcome> outcomes = publish(List.of(badSource, relativeSchema, good)).stream()
                    .collect(Collectors.toMap(PublishOutcome::eventId, Function.identity()));

            assertThat(outcomes.get(badSource.id())).isInstanceOfSatisfying(PublishOutcome.Failed.class, failed -> {
                assertThat(failed.retryable()).isFalse();
                assertThat(failed.reason()).contains("source", "'not a uri'");
            });
            assertThat(outcomes.get(relativeSchema.id()))
                    .isInstanceOfSatisfying(PublishOutcome.Failed.class, failed -> {
                        assertThat(failed.retryable()).isFalse();
                        assertThat(failed.reason()).contains("dataschema", "'schemas/v1.json'");
                    });
            assertThat(outcomes.get(good.id())).isInstanceOf(PublishOutcome.Published.class);
            // asks for one more than should arrive, so a delivered failed event would be seen
            assertThat(consume(destination, 2, Duration.ofSeconds(10)))
                    .extracting(ReceivedMessage::id)
                    .containsExactly(good.id().toString());
        }
    }

    @Nested
    @DisplayName("the per-key hold-back rule")
    class HoldBack {

        @Test
        @DisplayName(
                "an event that fails holds back the later events of its key only: reported held back, not delivered; "
                        + "an own header named like an envelope header fails the event, naming the header")
        void failureHoldsBackItsKeyOnly() throws Exception {
            String destination = newDestination();
            OutboxEvent before = event(destination, "k", 0);
            Instant now = Instant.now();
            // only a row written without the builder can carry such a header; the builder refuses it
            OutboxEvent failing = OutboxEvent.restore()
                    .id(UUID.randomUUID())
                    .type("order.placed")
                    .source("/contract-test")
                    .key(Optional.of("k"))
                    .destination(destination)
                    .routingKey(routingKey())
                    .payload("{}".getBytes(StandardCharsets.UTF_8))
                    .headers(Map.of("ce_type", "forged"))
                    .nextAttemptAt(now)
                    .createdAt(now)
                    .build();
            OutboxEvent after = event(destination, "k", 2);
            OutboxEvent otherKey = event(destination, "other", 3);
            OutboxEvent noKey = event(destination, null, 4);

            Map<UUID, PublishOutcome> outcomes = publish(List.of(before, failing, after, otherKey, noKey)).stream()
                    .collect(Collectors.toMap(PublishOutcome::eventId, Function.identity()));

            assertThat(outcomes.get(before.id())).isInstanceOf(PublishOutcome.Published.class);
            assertThat(outcomes.get(failing.id())).isInstanceOfSatisfying(PublishOutcome.Failed.class, failed -> {
                assertThat(failed.retryable()).isFalse();
                assertThat(failed.heldBack()).isFalse();
                assertThat(failed.reason()).contains("'ce_type'");
            });
            assertThat(outcomes.get(after.id())).isInstanceOfSatisfying(PublishOutcome.Failed.class, failed -> {
                assertThat(failed.heldBack()).isTrue();
                assertThat(failed.retryable()).isTrue();
                assertThat(failed.reason()).contains(failing.id().toString());
            });
            assertThat(outcomes.get(otherKey.id())).isInstanceOf(PublishOutcome.Published.class);
            assertThat(outcomes.get(noKey.id())).isInstanceOf(PublishOutcome.Published.class);
            // asks for one more than should arrive, so a delivered held-back or failed event would be seen
            assertThat(consume(destination, 4, Duration.ofSeconds(10)))
                    .extracting(ReceivedMessage::id)
                    .containsExactlyInAnyOrder(
                            before.id().toString(),
                            otherKey.id().toString(),
                            noKey.id().toString());
        }
    }
}
