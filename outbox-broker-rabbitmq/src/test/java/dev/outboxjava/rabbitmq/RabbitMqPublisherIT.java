package dev.outboxjava.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.Delivery;
import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.RetryPolicy;
import dev.outboxjava.core.memory.InMemoryOutboxStore;
import dev.outboxjava.core.port.PublishOutcome;
import dev.outboxjava.core.relay.Relay;
import dev.outboxjava.core.relay.RelayConfig;
import dev.outboxjava.core.relay.RelayListener;
import dev.outboxjava.core.relay.RelayResult;
import dev.outboxjava.core.time.ManualClock;
import dev.outboxjava.testkit.TestEvents;
import dev.outboxjava.testkit.fixture.ServiceOrigin;
import dev.outboxjava.testkit.rabbitmq.RabbitMqDestination;
import dev.outboxjava.testkit.rabbitmq.RabbitMqFixture;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** The RabbitMQ publisher against a real broker (the local RabbitMQ here). */
class RabbitMqPublisherIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static RabbitMqFixture rabbit;

    @BeforeAll
    static void start() {
        rabbit = RabbitMqFixture.start();
    }

    @AfterAll
    static void stop() {
        rabbit.close();
    }

    private static RabbitMqPublisher newPublisher(String connectionName) {
        return new RabbitMqPublisher(RabbitMqPublisherConfig.builder()
                .uri(rabbit.uri())
                .connectionName(connectionName)
                .recoveryInterval(Duration.ofSeconds(1))
                .build());
    }

    private static String uniqueName(String what) {
        return "outbox-it-" + what + "-" + UUID.randomUUID();
    }

    private static OutboxEvent event(String exchange, String routingKey, String key, int n) {
        OutboxEvent.Builder builder = OutboxEvent.builder()
                .type("order.placed")
                .source("/orders-service")
                .destination(exchange)
                .routingKey(routingKey)
                .header("n", Integer.toString(n))
                .payload(("{\"n\":" + n + "}").getBytes(StandardCharsets.UTF_8));
        return key == null ? builder.build() : builder.key(key).build();
    }

    private static List<PublishOutcome> publish(RabbitMqPublisher publisher, List<OutboxEvent> batch) throws Exception {
        return publisher.publish(batch, TIMEOUT).get(TIMEOUT.toSeconds() + 10, TimeUnit.SECONDS);
    }

    private static Map<UUID, PublishOutcome> byId(List<PublishOutcome> outcomes) {
        return outcomes.stream().collect(Collectors.toMap(PublishOutcome::eventId, Function.identity()));
    }

    @Nested
    @DisplayName("a plain AMQP consumer")
    class PlainConsumer {

        @Test
        @DisplayName("reads 10,000 events published in batches, each once, with every attribute")
        void tenThousandEventsArriveOnceWithAllAttributes() throws Exception {
            RabbitMqDestination destination = rabbit.createDestination("ten-thousand");
            List<OutboxEvent> events = IntStream.range(0, 10_000)
                    .mapToObj(n -> event(
                            destination.exchange(),
                            "orders.placed." + (n % 7),
                            n % 5 == 0 ? null : "order-" + (n % 50),
                            n))
                    .toList();
            try (RabbitMqPublisher publisher = newPublisher(uniqueName("ten-thousand"))) {
                for (int from = 0; from < events.size(); from += 500) {
                    List<PublishOutcome> outcomes = publish(publisher, events.subList(from, from + 500));
                    assertThat(outcomes).hasSize(500).allMatch(PublishOutcome.Published.class::isInstance);
                }
            }

            List<Delivery> received = rabbit.receive(destination, events.size(), Duration.ofSeconds(60));

            assertThat(received).hasSize(events.size());
            Map<String, OutboxEvent> sent =
                    events.stream().collect(Collectors.toMap(e -> e.id().toString(), Function.identity()));
            Set<String> seen = new HashSet<>();
            for (Delivery delivery : received) {
                String id = delivery.getProperties().getMessageId();
                assertThat(seen.add(id)).as("message %s arrives once", id).isTrue();
                OutboxEvent event = sent.get(id);
                assertThat(event).as("message %s was published", id).isNotNull();
                Map<String, Object> headers = delivery.getProperties().getHeaders();
                assertThat(AmqpConsumerView.header(headers, "cloudEvents:id")).isEqualTo(id);
                assertThat(AmqpConsumerView.header(headers, "cloudEvents:type")).isEqualTo("order.placed");
                assertThat(AmqpConsumerView.header(headers, "cloudEvents:source"))
                        .isEqualTo("/orders-service");
                assertThat(AmqpConsumerView.header(headers, "cloudEvents:specversion"))
                        .isEqualTo("1.0");
                assertThat(Instant.parse(AmqpConsumerView.header(headers, "cloudEvents:time")))
                        .isEqualTo(event.createdAt());
                assertThat(AmqpConsumerView.header(headers, "cloudEvents:partitionkey"))
                        .isEqualTo(event.key().orElse(null));
                assertThat(AmqpConsumerView.header(headers, "n"))
                        .isEqualTo(event.headers().get("n"));
                assertThat(delivery.getProperties().getType()).isEqualTo("order.placed");
                assertThat(delivery.getProperties().getContentType()).isEqualTo("application/json");
                assertThat(delivery.getProperties().getDeliveryMode()).isEqualTo(2);
                assertThat(delivery.getProperties().getTimestamp())
                        .isEqualTo(Date.from(event.createdAt().truncatedTo(java.time.temporal.ChronoUnit.SECONDS)));
                assertThat(delivery.getEnvelope().getExchange()).isEqualTo(destination.exchange());
                assertThat(delivery.getEnvelope().getRoutingKey()).isEqualTo(event.routingKey());
                assertThat(delivery.getBody()).isEqualTo(event.payload());
            }
        }
    }

    @Nested
    @DisplayName("the largest event the builder accepts")
    class LargestEvent {

        @Test
        @DisplayName("is delivered with RabbitMQ's default frame and message size limits, every header intact")
        void delivered() throws Exception {
            RabbitMqDestination destination = rabbit.createDestination("largest");
            OutboxEvent largest = TestEvents.largestAccepted(destination.exchange());

            try (RabbitMqPublisher publisher = newPublisher(uniqueName("largest"))) {
                assertThat(publish(publisher, List.of(largest)))
                        .singleElement()
                        .isInstanceOf(PublishOutcome.Published.class);
            }
            Delivery delivery = rabbit.receive(destination, 1, TIMEOUT).get(0);
            assertThat(delivery.getBody()).hasSize(OutboxEvent.DEFAULT_MAX_PAYLOAD_BYTES);
            Map<String, Object> headers = delivery.getProperties().getHeaders();
            largest.headers()
                    .forEach((name, value) ->
                            assertThat(AmqpConsumerView.header(headers, name)).isEqualTo(value));
            assertThat(AmqpConsumerView.header(headers, "cloudEvents:partitionkey"))
                    .isEqualTo(largest.key().orElseThrow());
        }
    }

    @Nested
    @DisplayName("the CloudEvents subject and dataschema")
    class SubjectAndDataSchema {

        @Test
        @DisplayName(
                "reach a plain amqp-client consumer as cloudEvents:subject and cloudEvents:dataschema, and are absent when not set")
        void readBackWithPlainAmqpClient() throws Exception {
            RabbitMqDestination destination = rabbit.createDestination("subject");
            OutboxEvent with = OutboxEvent.builder()
                    .type("order.placed")
                    .source("/orders-service")
                    .destination(destination.exchange())
                    .routingKey("rk")
                    .subject("order-42")
                    .dataSchema("https://example.com/schemas/order-placed-v1.json")
                    .payload(new byte[] {1})
                    .build();
            OutboxEvent without = event(destination.exchange(), "rk", null, 2);
            try (RabbitMqPublisher publisher = newPublisher(uniqueName("subject"))) {
                assertThat(publish(publisher, List.of(with, without)))
                        .allMatch(PublishOutcome.Published.class::isInstance);
            }

            List<Delivery> received = rabbit.receive(destination, 2, TIMEOUT);

            Map<String, Object> first = received.get(0).getProperties().getHeaders();
            assertThat(AmqpConsumerView.header(first, "cloudEvents:subject")).isEqualTo("order-42");
            assertThat(AmqpConsumerView.header(first, "cloudEvents:dataschema"))
                    .isEqualTo("https://example.com/schemas/order-placed-v1.json");
            Map<String, Object> second = received.get(1).getProperties().getHeaders();
            assertThat(second).doesNotContainKeys("cloudEvents:subject", "cloudEvents:dataschema");
        }
    }

    @Nested
    @DisplayName("an unroutable event")
    class Unroutable {

        @Test
        @DisplayName(
                "is an unroutable (retryable) failure naming the exchange and routing key; the rest of the batch is published")
        void unroutableIsRetryableFailure() throws Exception {
            String unbound = rabbit.createUnboundExchange("unroutable");
            RabbitMqDestination routed = rabbit.createDestination("routed");
            OutboxEvent before = event(routed.exchange(), "rk", "k1", 1);
            OutboxEvent lost = event(unbound, "nobody.listens", "k2", 2);
            OutboxEvent after = event(routed.exchange(), "rk", "k3", 3);

            try (RabbitMqPublisher publisher = newPublisher(uniqueName("unroutable"))) {
                Map<UUID, PublishOutcome> outcomes = byId(publish(publisher, List.of(before, lost, after)));

                assertThat(outcomes.get(before.id())).isInstanceOf(PublishOutcome.Published.class);
                assertThat(outcomes.get(after.id())).isInstanceOf(PublishOutcome.Published.class);
                assertThat(outcomes.get(lost.id())).isInstanceOfSatisfying(PublishOutcome.Failed.class, failed -> {
                    assertThat(failed.retryable()).isTrue();
                    assertThat(failed.unroutable()).isTrue();
                    assertThat(failed.reason())
                            .contains(unbound)
                            .contains("nobody.listens")
                            .contains("unroutable");
                });
            }
            assertThat(rabbit.receive(routed, 2, TIMEOUT))
                    .extracting(d -> d.getProperties().getMessageId())
                    .containsExactly(before.id().toString(), after.id().toString());
        }

        @Test
        @DisplayName("run through the relay, is dead-lettered after the unroutable budget (3), not its own (10)")
        void unroutableIsDeadLetteredThroughTheRelay() {
            String unbound = rabbit.createUnboundExchange("dead-letter");
            ManualClock clock = ManualClock.startingAtEpochOf2024();
            InMemoryOutboxStore store = new InMemoryOutboxStore();
            OutboxEvent event = OutboxEvent.builder()
                    .type("order.placed")
                    .destination(unbound)
                    .routingKey("no.route")
                    .payload(new byte[] {1})
                    .maxAttempts(10)
                    .clock(clock)
                    .build();
            store.append(List.of(event));
            RetryPolicy policy = RetryPolicy.builder()
                    .initialDelay(Duration.ofSeconds(1))
                    .jitter(0)
                    .build();

            try (RabbitMqPublisher publisher = newPublisher(uniqueName("relay"))) {
                Relay relay =
                        new Relay(store, publisher, new RelayConfig(10, TIMEOUT), policy, clock, RelayListener.NONE);
                RelayResult first = relay.runOnce();
                assertThat(first.retried()).isEqualTo(1);
                assertThat(store.find(event.id()).orElseThrow().status()).isEqualTo(EventStatus.PENDING);

                clock.advance(Duration.ofMinutes(1));
                assertThat(relay.runOnce().retried()).isEqualTo(1);
                clock.advance(Duration.ofMinutes(1));
                RelayResult last = relay.runOnce();

                assertThat(last.deadLettered()).isEqualTo(1);
                OutboxEvent dead = store.find(event.id()).orElseThrow();
                assertThat(dead.status()).isEqualTo(EventStatus.FAILED);
                assertThat(dead.lastError())
                        .hasValueSatisfying(
                                error -> assertThat(error).contains(unbound).contains("no.route"));
            }
        }
    }

    @Nested
    @DisplayName("an event AMQP cannot carry")
    class Unencodable {

        @Test
        @DisplayName(
                "(a row inserted by other means than the builder) fails, not retryable, before it reaches the channel; the rest of the batch is published")
        void routingKeyTooLongInBytes() throws Exception {
            RabbitMqDestination destination = rabbit.createDestination("unencodable");
            OutboxEvent before = event(destination.exchange(), "rk", "a", 1);
            OutboxEvent wide = OutboxEvent.restore()
                    .id(UUID.randomUUID())
                    .type("order.placed")
                    .destination(destination.exchange())
                    .routingKey("\u00e9".repeat(200))
                    .key(java.util.Optional.of("b"))
                    .nextAttemptAt(Instant.now())
                    .createdAt(Instant.now())
                    .build();
            OutboxEvent after = event(destination.exchange(), "rk", "c", 3);

            try (RabbitMqPublisher publisher = newPublisher(uniqueName("unencodable"))) {
                Map<UUID, PublishOutcome> outcomes = byId(publish(publisher, List.of(before, wide, after)));

                assertThat(outcomes.get(wide.id())).isInstanceOfSatisfying(PublishOutcome.Failed.class, failed -> {
                    assertThat(failed.retryable()).isFalse();
                    assertThat(failed.reason()).contains("routing key");
                });
                assertThat(outcomes.get(before.id())).isInstanceOf(PublishOutcome.Published.class);
                assertThat(outcomes.get(after.id())).isInstanceOf(PublishOutcome.Published.class);
            }
            assertThat(rabbit.receive(destination, 2, TIMEOUT))
                    .extracting(d -> d.getProperties().getMessageId())
                    .containsExactly(before.id().toString(), after.id().toString());
        }
    }

    @Nested
    @DisplayName("a batch that outlives its timeout")
    class Timeout {

        @Test
        @DisplayName("reports unconfirmed events as retryable failures on time, and the next batch is unaffected")
        void unconfirmedInTimeAreRetryable() throws Exception {
            RabbitMqDestination destination = rabbit.createDestination("timeout");
            byte[] payload = new byte[1024];
            List<OutboxEvent> big = IntStream.range(0, 10_000)
                    .mapToObj(n -> OutboxEvent.builder()
                            .type("timeout.test")
                            .destination(destination.exchange())
                            .routingKey("rk")
                            .payload(payload)
                            .build())
                    .toList();
            try (RabbitMqPublisher publisher = newPublisher(uniqueName("timeout"))) {
                List<PublishOutcome> outcomes =
                        publisher.publish(big, Duration.ofMillis(1)).get(10, TimeUnit.SECONDS);

                assertThat(outcomes).hasSize(big.size());
                List<PublishOutcome.Failed> failed = outcomes.stream()
                        .filter(PublishOutcome.Failed.class::isInstance)
                        .map(PublishOutcome.Failed.class::cast)
                        .toList();
                assertThat(failed).isNotEmpty().allSatisfy(f -> {
                    assertThat(f.retryable()).isTrue();
                    assertThat(f.reason()).contains("did not confirm the event within PT0.001S");
                });

                rabbit.receive(destination, big.size(), Duration.ofSeconds(2));
                List<OutboxEvent> next = IntStream.range(0, 100)
                        .mapToObj(n -> event(destination.exchange(), "rk", "k", n))
                        .toList();
                assertThat(publish(publisher, next)).hasSize(100).allMatch(PublishOutcome.Published.class::isInstance);
                assertThat(rabbit.receive(destination, 100, TIMEOUT))
                        .extracting(d -> d.getProperties().getMessageId())
                        .containsExactlyElementsOf(
                                next.stream().map(e -> e.id().toString()).toList());
            }
        }
    }

    @Nested
    @DisplayName("a negative acknowledgement")
    class NegativeAcknowledgement {

        @Test
        @DisplayName("is a retryable failure for that event only, naming exchange and routing key")
        void nackedEventIsRetryableFailure() throws Exception {
            String name = "outbox-it-full-" + UUID.randomUUID();
            try (com.rabbitmq.client.Connection admin =
                            rabbit.connectionFactory().newConnection(uniqueName("admin"));
                    com.rabbitmq.client.Channel channel = admin.createChannel()) {
                channel.exchangeDeclare(name, "topic", false, true, null);
                // a queue that holds one message and refuses the rest with basic.nack
                channel.queueDeclare(
                        name, false, false, true, Map.of("x-max-length", 1, "x-overflow", "reject-publish"));
                channel.queueBind(name, name, "#");
                OutboxEvent first = event(name, "full.queue", "a", 1);
                OutboxEvent second = event(name, "full.queue", "b", 2);

                try (RabbitMqPublisher publisher = newPublisher(uniqueName("nack"))) {
                    Map<UUID, PublishOutcome> outcomes = byId(publish(publisher, List.of(first, second)));

                    assertThat(outcomes.get(first.id())).isInstanceOf(PublishOutcome.Published.class);
                    assertThat(outcomes.get(second.id()))
                            .isInstanceOfSatisfying(PublishOutcome.Failed.class, failed -> {
                                assertThat(failed.retryable()).isTrue();
                                assertThat(failed.reason())
                                        .contains("negative publisher confirm")
                                        .contains(name)
                                        .contains("full.queue");
                            });
                } finally {
                    channel.queueDelete(name);
                    channel.exchangeDelete(name);
                }
            }
        }
    }

    @Nested
    @DisplayName("an event for an exchange that does not exist")
    class MissingExchange {

        @Test
        @DisplayName(
                "fails as unroutable naming the exchange, without being sent; the other events are published, an event of its key held back")
        void missingExchangeFailsOthersPublished() throws Exception {
            RabbitMqDestination routed = rabbit.createDestination("fresh-channel");
            String missing = "outbox-it-missing-" + UUID.randomUUID();
            List<OutboxEvent> batch = new ArrayList<>();
            for (int n = 0; n < 10; n++) {
                batch.add(event(routed.exchange(), "rk", "key-" + n, n));
            }
            OutboxEvent bad = event(missing, "rk", "bad-key", 100);
            batch.add(5, bad);
            OutboxEvent sameKeyAsBad = event(routed.exchange(), "rk", "bad-key", 101);
            batch.add(sameKeyAsBad);

            try (RabbitMqPublisher publisher = newPublisher(uniqueName("missing-exchange"))) {
                Map<UUID, PublishOutcome> outcomes = byId(publish(publisher, batch));

                assertThat(outcomes.get(bad.id())).isInstanceOfSatisfying(PublishOutcome.Failed.class, failed -> {
                    assertThat(failed.retryable()).isTrue();
                    assertThat(failed.unroutable()).isTrue();
                    assertThat(failed.reason()).contains("exchange '" + missing + "' does not exist");
                });
                assertThat(outcomes.get(sameKeyAsBad.id()))
                        .isInstanceOfSatisfying(
                                PublishOutcome.Failed.class,
                                failed -> assertThat(failed.reason())
                                        .contains("held back")
                                        .contains(bad.id().toString()));
                List<OutboxEvent> others = batch.stream()
                        .filter(e -> e != bad && e != sameKeyAsBad)
                        .toList();
                assertThat(others)
                        .allSatisfy(e -> assertThat(outcomes.get(e.id())).isInstanceOf(PublishOutcome.Published.class));
                assertExactlyOnce(routed, others);

                // the publisher keeps working
                OutboxEvent later = event(routed.exchange(), "rk", "later", 200);
                assertThat(publish(publisher, List.of(later)))
                        .singleElement()
                        .isInstanceOf(PublishOutcome.Published.class);
            }
        }

        @Test
        @DisplayName(
                "does not cause duplicates of its neighbours: in batches of hundreds, every valid event arrives exactly once")
        void noDuplicateNeighbours() throws Exception {
            RabbitMqDestination routed = rabbit.createDestination("no-duplicates");
            String missing = "outbox-it-missing-" + UUID.randomUUID();
            byte[] payload = new byte[4096];
            List<OutboxEvent> valid = new ArrayList<>();
            try (RabbitMqPublisher publisher = newPublisher(uniqueName("no-duplicates"))) {
                for (int round = 0; round < 5; round++) {
                    List<OutboxEvent> batch = new ArrayList<>();
                    for (int n = 0; n < 400; n++) {
                        batch.add(OutboxEvent.builder()
                                .type("order.placed")
                                .destination(routed.exchange())
                                .routingKey("rk")
                                .payload(payload)
                                .build());
                    }
                    valid.addAll(batch);
                    // mid-batch, behind hundreds of messages not yet confirmed
                    batch.add(
                            200,
                            OutboxEvent.builder()
                                    .type("order.placed")
                                    .destination(missing)
                                    .routingKey("rk")
                                    .payload(payload)
                                    .build());
                    List<PublishOutcome> outcomes = publish(publisher, batch);
                    assertThat(outcomes.stream()
                                    .filter(PublishOutcome.Failed.class::isInstance)
                                    .map(PublishOutcome.Failed.class::cast))
                            .singleElement()
                            .satisfies(failed -> assertThat(failed.unroutable()).isTrue());
                }
            }
            assertExactlyOnce(routed, valid);
        }

        @Test
        @DisplayName(
                "run through the relay, is dead-lettered after the unroutable budget (3) and counted unroutable each time")
        void missingExchangeDeadLetteredThroughTheRelay() {
            RabbitMqDestination routed = rabbit.createDestination("relay-neighbour");
            String missing = "outbox-it-missing-" + UUID.randomUUID();
            ManualClock clock = ManualClock.startingAtEpochOf2024();
            InMemoryOutboxStore store = new InMemoryOutboxStore();
            OutboxEvent lost = OutboxEvent.builder()
                    .type("order.placed")
                    .destination(missing)
                    .routingKey("rk")
                    .payload(new byte[] {1})
                    .clock(clock)
                    .build();
            OutboxEvent fine = OutboxEvent.builder()
                    .type("order.placed")
                    .destination(routed.exchange())
                    .routingKey("rk")
                    .payload(new byte[] {1})
                    .clock(clock)
                    .build();
            store.append(List.of(lost, fine));
            List<PublishOutcome.Failed> failures = new ArrayList<>();
            RelayListener listener = new RelayListener() {
                @Override
                public void onFailed(OutboxEvent event, PublishOutcome.Failed failure) {
                    failures.add(failure);
                }
            };
            try (RabbitMqPublisher publisher = newPublisher(uniqueName("relay-missing"))) {
                Relay relay = new Relay(
                        store,
                        publisher,
                        new RelayConfig(10, TIMEOUT),
                        RetryPolicy.builder().jitter(0).build(),
                        clock,
                        listener);
                for (int attempt = 0; attempt < 3; attempt++) {
                    relay.runOnce();
                    clock.advance(Duration.ofMinutes(1));
                }
            }
            OutboxEvent dead = store.find(lost.id()).orElseThrow();
            assertThat(dead.status()).isEqualTo(EventStatus.FAILED);
            assertThat(dead.attempts()).isEqualTo(RetryPolicy.DEFAULT_UNROUTABLE_MAX_ATTEMPTS);
            assertThat(dead.lastError())
                    .hasValueSatisfying(error -> assertThat(error).contains(missing));
            assertThat(failures)
                    .hasSize(3)
                    .allSatisfy(f -> assertThat(f.unroutable()).isTrue());
            assertThat(store.find(fine.id()).orElseThrow().status()).isEqualTo(EventStatus.SENT);
            assertExactlyOnce(routed, List.of(fine));
        }

        /** Every event arrived, none twice: all are confirmed by now, so the queue holds whatever will arrive. */
        private void assertExactlyOnce(RabbitMqDestination destination, List<OutboxEvent> events) {
            List<String> arrived = rabbit.receive(destination, events.size() + 1, Duration.ofSeconds(3)).stream()
                    .map(d -> d.getProperties().getMessageId())
                    .toList();
            assertThat(arrived)
                    .doesNotHaveDuplicates()
                    .containsExactlyInAnyOrderElementsOf(
                            events.stream().map(e -> e.id().toString()).toList());
        }
    }

    @Nested
    @DisplayName("when the broker is unavailable")
    class Outages {

        @Test
        @DisplayName(
                "a forcibly closed connection fails the unconfirmed events as retryable, and publishing resumes after recovery")
        void connectionClosedDuringBatches() throws Exception {
            Assumptions.assumeTrue(
                    rabbit.origin() == ServiceOrigin.LOCAL && RabbitMqCtl.isAvailable(),
                    "needs the local RabbitMQ and rabbitmqctl to close one connection");
            RabbitMqDestination destination = rabbit.createDestination("outage");
            String connectionName = uniqueName("outage");
            byte[] payload = new byte[1024];
            try (RabbitMqPublisher publisher = newPublisher(connectionName)) {
                String pid = RabbitMqCtl.connectionPid(connectionName);
                List<OutboxEvent> all = new ArrayList<>();
                List<PublishOutcome> outcomes = new ArrayList<>();
                // keep batches in flight while one connection (ours) is closed from the broker side
                CompletableFuture<Void> closer = CompletableFuture.runAsync(() -> {
                    try {
                        RabbitMqCtl.closeConnection(connectionName);
                    } catch (java.io.IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                });
                while (!closer.isDone() || outcomes.stream().noneMatch(PublishOutcome.Failed.class::isInstance)) {
                    List<OutboxEvent> batch = IntStream.range(0, 500)
                            .mapToObj(n -> OutboxEvent.builder()
                                    .type("outage.test")
                                    .destination(destination.exchange())
                                    .routingKey("rk")
                                    .key("k" + (n % 10))
                                    .payload(payload)
                                    .build())
                            .toList();
                    all.addAll(batch);
                    outcomes.addAll(publish(publisher, batch));
                    assertThat(all.size())
                            .as("the connection %s was closed by now", pid)
                            .isLessThan(2_000_000);
                }
                closer.join();
                System.out.printf(
                        "forced close of %s: %d events in %d batches, %d failed%n",
                        pid,
                        all.size(),
                        all.size() / 500,
                        outcomes.stream()
                                .filter(PublishOutcome.Failed.class::isInstance)
                                .count());

                assertThat(outcomes).hasSameSizeAs(all);
                List<PublishOutcome.Failed> failures = outcomes.stream()
                        .filter(PublishOutcome.Failed.class::isInstance)
                        .map(PublishOutcome.Failed.class::cast)
                        .toList();
                assertThat(failures).isNotEmpty().allSatisfy(failed -> {
                    assertThat(failed.retryable()).isTrue();
                    assertThat(failed.reason()).containsAnyOf("connection", "channel");
                });

                // automatic recovery: a later batch is published in full
                List<OutboxEvent> afterRecovery = new ArrayList<>();
                await().atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(500))
                        .untilAsserted(() -> {
                            OutboxEvent probe = OutboxEvent.builder()
                                    .type("outage.test")
                                    .destination(destination.exchange())
                                    .routingKey("rk")
                                    .payload(payload)
                                    .build();
                            afterRecovery.add(probe);
                            assertThat(publish(publisher, List.of(probe)))
                                    .singleElement()
                                    .isInstanceOf(PublishOutcome.Published.class);
                        });
                assertThat(publisher.checkHealth().healthy()).isTrue();
                assertThat(RabbitMqCtl.connectionPid(connectionName)).isNotEqualTo(pid);

                // every event reported published did arrive
                Set<String> published = outcomes.stream()
                        .filter(PublishOutcome.Published.class::isInstance)
                        .map(o -> o.eventId().toString())
                        .collect(Collectors.toSet());
                Set<String> arrived = rabbit.receiveEach(destination, published, Duration.ofSeconds(60)).stream()
                        .map(d -> d.getProperties().getMessageId())
                        .collect(Collectors.toSet());
                assertThat(arrived).containsAll(published);
            }
        }

        @Test
        @DisplayName("an unreachable broker gives retryable failures and an unhealthy check, never an exception")
        void unreachableBroker() throws Exception {
            int closedPort;
            try (ServerSocket socket = new ServerSocket(0)) {
                closedPort = socket.getLocalPort();
            }
            RabbitMqPublisherConfig config = RabbitMqPublisherConfig.builder()
                    .host("127.0.0.1")
                    .port(closedPort)
                    .connectionName(uniqueName("unreachable"))
                    .connectionTimeout(Duration.ofSeconds(2))
                    .build();
            try (RabbitMqPublisher publisher = new RabbitMqPublisher(config)) {
                List<OutboxEvent> batch = List.of(event("anywhere", "rk", "k", 1), event("anywhere", "rk", null, 2));

                List<PublishOutcome> outcomes = publish(publisher, batch);

                assertThat(outcomes)
                        .hasSize(2)
                        .allSatisfy(outcome -> assertThat(outcome)
                                .isInstanceOfSatisfying(PublishOutcome.Failed.class, failed -> {
                                    assertThat(failed.retryable()).isTrue();
                                    assertThat(failed.reason()).contains("127.0.0.1:" + closedPort);
                                }));
                assertThat(publisher.checkHealth().healthy()).isFalse();
                assertThat(publisher.checkHealth().detail()).contains("127.0.0.1:" + closedPort);
            }
        }
    }

    @Nested
    @DisplayName("concurrent callers")
    class Concurrency {

        @Test
        @DisplayName("several threads publishing at once each get all their events confirmed, in order per batch")
        void concurrentPublishes() throws Exception {
            RabbitMqDestination destination = rabbit.createDestination("concurrent");
            try (RabbitMqPublisher publisher = newPublisher(uniqueName("concurrent"))) {
                List<List<OutboxEvent>> batches = IntStream.range(0, 8)
                        .mapToObj(b -> IntStream.range(0, 200)
                                .mapToObj(n -> event(destination.exchange(), "rk", "batch-" + b, n))
                                .toList())
                        .toList();
                List<CompletableFuture<List<PublishOutcome>>> futures = batches.parallelStream()
                        .map(batch -> publisher.publish(batch, TIMEOUT))
                        .toList();
                for (CompletableFuture<List<PublishOutcome>> future : futures) {
                    assertThat(future.get(60, TimeUnit.SECONDS))
                            .hasSize(200)
                            .allMatch(PublishOutcome.Published.class::isInstance);
                }
                List<Delivery> received = rabbit.receive(destination, 1600, TIMEOUT);
                assertThat(received).hasSize(1600);
                Map<Object, List<Integer>> order = received.stream()
                        .collect(Collectors.groupingBy(
                                d -> d.getProperties()
                                        .getHeaders()
                                        .get("cloudEvents:partitionkey")
                                        .toString(),
                                Collectors.mapping(
                                        d -> Integer.parseInt(d.getProperties()
                                                .getHeaders()
                                                .get("n")
                                                .toString()),
                                        Collectors.toList())));
                assertThat(order)
                        .hasSize(8)
                        .allSatisfy((key, ns) ->
                                assertThat(ns).as("order of %s", key).isSorted());
            }
        }
    }
}
