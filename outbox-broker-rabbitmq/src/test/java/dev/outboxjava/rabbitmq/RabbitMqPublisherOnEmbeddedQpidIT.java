package dev.outboxjava.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.PublishOutcome;
import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.testkit.contract.PublisherContract;
import dev.outboxjava.testkit.contract.ReceivedMessage;
import dev.outboxjava.testkit.fixture.ServiceConfig;
import dev.outboxjava.testkit.fixture.ServiceOrigin;
import dev.outboxjava.testkit.rabbitmq.RabbitMqDestination;
import dev.outboxjava.testkit.rabbitmq.RabbitMqFixture;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The machine with only a JDK and Maven: local services skipped ({@code outbox.test.skip-local}),
 * so the fixture starts the embedded Qpid Broker-J, and the publisher passes the same contract on it
 * — publisher confirms, mandatory returns and the 404 channel close included.
 */
class RabbitMqPublisherOnEmbeddedQpidIT extends PublisherContract {

    private static RabbitMqFixture rabbit;
    private static RabbitMqPublisher publisher;
    private static String previousSkipLocal;
    private static final Map<String, RabbitMqDestination> destinations = new ConcurrentHashMap<>();

    @BeforeAll
    static void start() {
        previousSkipLocal = System.getProperty(ServiceConfig.SKIP_LOCAL);
        System.setProperty(ServiceConfig.SKIP_LOCAL, "true");
        rabbit = RabbitMqFixture.start();
        publisher = new RabbitMqPublisher(RabbitMqPublisherConfig.builder()
                .uri(rabbit.uri())
                .connectionName("outbox-qpid-it-" + UUID.randomUUID())
                .build());
    }

    @AfterAll
    static void stop() {
        try {
            publisher.close();
            rabbit.close();
        } finally {
            if (previousSkipLocal == null) {
                System.clearProperty(ServiceConfig.SKIP_LOCAL);
            } else {
                System.setProperty(ServiceConfig.SKIP_LOCAL, previousSkipLocal);
            }
        }
    }

    @Override
    protected Publisher publisher() {
        return publisher;
    }

    @Override
    protected String newDestination() {
        RabbitMqDestination destination = rabbit.createDestination("qpid-contract");
        destinations.put(destination.exchange(), destination);
        return destination.exchange();
    }

    @Override
    protected List<ReceivedMessage> consume(String destination, int expected, Duration timeout) {
        return rabbit.receive(destinations.get(destination), expected, timeout).stream()
                .map(AmqpConsumerView::read)
                .toList();
    }

    private static OutboxEvent event(String exchange, String key) {
        return OutboxEvent.builder()
                .type("qpid.test")
                .destination(exchange)
                .routingKey("rk")
                .key(key)
                .payload("{}".getBytes(StandardCharsets.UTF_8))
                .build();
    }

    private static Map<UUID, PublishOutcome> publish(List<OutboxEvent> batch) throws Exception {
        return publisher.publish(batch, PUBLISH_TIMEOUT).get(60, TimeUnit.SECONDS).stream()
                .collect(Collectors.toMap(PublishOutcome::eventId, Function.identity()));
    }

    @Nested
    @DisplayName("on the embedded Qpid Broker-J")
    class OnQpid {

        @Test
        @DisplayName("the fixture chose the embedded broker")
        void embedded() {
            assertThat(rabbit.origin()).isEqualTo(ServiceOrigin.EMBEDDED);
        }

        @Test
        @DisplayName("an unroutable event is a retryable failure naming exchange and routing key")
        void unroutable() throws Exception {
            String unbound = rabbit.createUnboundExchange("qpid-unroutable");
            RabbitMqDestination routed = rabbit.createDestination("qpid-routed");
            OutboxEvent lost = event(unbound, "a");
            OutboxEvent fine = event(routed.exchange(), "b");

            Map<UUID, PublishOutcome> outcomes = publish(List.of(lost, fine));

            assertThat(outcomes.get(fine.id())).isInstanceOf(PublishOutcome.Published.class);
            assertThat(outcomes.get(lost.id())).isInstanceOfSatisfying(PublishOutcome.Failed.class, failed -> {
                assertThat(failed.retryable()).isTrue();
                assertThat(failed.reason()).contains(unbound).contains("'rk'");
            });
        }

        @Test
        @DisplayName("an event for a missing exchange fails naming it; the others are published on a fresh channel")
        void missingExchange() throws Exception {
            RabbitMqDestination routed = rabbit.createDestination("qpid-fresh-channel");
            String missing = "qpid-missing-" + UUID.randomUUID();
            OutboxEvent first = event(routed.exchange(), "a");
            OutboxEvent bad = event(missing, "b");
            OutboxEvent last = event(routed.exchange(), "c");

            Map<UUID, PublishOutcome> outcomes = publish(List.of(first, bad, last));

            assertThat(outcomes.get(bad.id()))
                    .isInstanceOfSatisfying(
                            PublishOutcome.Failed.class,
                            failed ->
                                    assertThat(failed.reason()).contains("exchange '" + missing + "' does not exist"));
            assertThat(outcomes.get(first.id())).isInstanceOf(PublishOutcome.Published.class);
            assertThat(outcomes.get(last.id())).isInstanceOf(PublishOutcome.Published.class);
            assertThat(rabbit.receive(routed, 2, Duration.ofSeconds(10)))
                    .extracting(d -> d.getProperties().getMessageId())
                    .contains(first.id().toString(), last.id().toString());
        }
    }
}
