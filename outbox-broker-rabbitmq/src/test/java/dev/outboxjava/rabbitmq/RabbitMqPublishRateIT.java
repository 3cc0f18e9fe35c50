package dev.outboxjava.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.PublishOutcome;
import dev.outboxjava.testkit.rabbitmq.RabbitMqDestination;
import dev.outboxjava.testkit.rabbitmq.RabbitMqFixture;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Prints the publish rate (broker-confirmed events per second) for 10,000 × 1 KB events, into the
 * fixture's non-durable queue (RabbitMQ keeps persistent messages of a non-durable queue in memory)
 * and into a durable queue (it writes them to disk before confirming — what a production outbox
 * queue costs). A figure for the README, not an assertion: the machine is shared.
 */
class RabbitMqPublishRateIT {

    private static final int EVENTS = 10_000;
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @Test
    void printsThePublishRateOfTenThousandOneKilobyteEvents() throws Exception {
        try (RabbitMqFixture rabbit = RabbitMqFixture.start();
                RabbitMqPublisher publisher = new RabbitMqPublisher(RabbitMqPublisherConfig.builder()
                        .uri(rabbit.uri())
                        .connectionName("outbox-rate-it-" + UUID.randomUUID())
                        .build())) {
            byte[] payload = new byte[1024];
            ThreadLocalRandom.current().nextBytes(payload);
            RabbitMqDestination inMemory = rabbit.createDestination("rate");
            RabbitMqDestination durable = durableDestination(rabbit);
            try {
                List<OutboxEvent> warmUp = events(inMemory, payload, 2_000);
                publishInBatches(publisher, warmUp, 500, 1);
                rabbit.receive(inMemory, warmUp.size(), TIMEOUT);

                for (RabbitMqDestination destination : List.of(inMemory, durable)) {
                    String queue = destination == inMemory ? "non-durable queue" : "durable queue";
                    for (int batchSize : new int[] {100, 500, 2_000}) {
                        for (int concurrent : new int[] {1, 2, 4}) {
                            List<OutboxEvent> events = events(destination, payload, EVENTS);
                            long started = System.nanoTime();
                            publishInBatches(publisher, events, batchSize, concurrent);
                            double seconds = (System.nanoTime() - started) / 1e9;
                            System.out.printf(
                                    "RabbitMQ publish rate (%s, %s): %,d x 1 KB events, batches of %,d, %d in "
                                            + "flight: %.2f s, %,.0f events/s%n",
                                    rabbit.origin(), queue, EVENTS, batchSize, concurrent, seconds, EVENTS / seconds);
                            assertThat(rabbit.receive(destination, EVENTS, TIMEOUT))
                                    .hasSize(EVENTS);
                        }
                    }
                }
            } finally {
                rabbit.delete(durable);
            }
        }
    }

    /** A durable topic exchange and queue, as a production outbox destination would be. */
    private static RabbitMqDestination durableDestination(RabbitMqFixture rabbit) throws Exception {
        String name = "rate-durable." + UUID.randomUUID().toString().substring(0, 8);
        try (Connection connection = rabbit.connectionFactory().newConnection("outbox-rate-it-admin");
                Channel channel = connection.createChannel()) {
            channel.exchangeDeclare(name, BuiltinExchangeType.TOPIC, true, false, null);
            channel.queueDeclare(name, true, false, false, null);
            channel.queueBind(name, name, "#");
        }
        return new RabbitMqDestination(name, name);
    }

    private static List<OutboxEvent> events(RabbitMqDestination destination, byte[] payload, int count) {
        return IntStream.range(0, count)
                .mapToObj(n -> OutboxEvent.builder()
                        .type("rate.test")
                        .source("/rate")
                        .key("key-" + (n % 100))
                        .destination(destination.exchange())
                        .routingKey("rate")
                        .contentType("application/octet-stream")
                        .payload(payload)
                        .build())
                .toList();
    }

    /** {@code concurrent} callers each publish a share of the events batch after batch. */
    private static void publishInBatches(
            RabbitMqPublisher publisher, List<OutboxEvent> events, int batchSize, int concurrent) {
        int share = events.size() / concurrent;
        List<CompletableFuture<Void>> callers = IntStream.range(0, concurrent)
                .mapToObj(c -> CompletableFuture.runAsync(() -> {
                    List<OutboxEvent> mine =
                            events.subList(c * share, c == concurrent - 1 ? events.size() : (c + 1) * share);
                    for (int from = 0; from < mine.size(); from += batchSize) {
                        List<OutboxEvent> batch = mine.subList(from, Math.min(from + batchSize, mine.size()));
                        List<PublishOutcome> outcomes = publisher
                                .publish(batch, TIMEOUT)
                                .orTimeout(TIMEOUT.toSeconds() + 10, TimeUnit.SECONDS)
                                .join();
                        assertThat(outcomes).allMatch(PublishOutcome.Published.class::isInstance);
                    }
                }))
                .toList();
        callers.forEach(CompletableFuture::join);
    }
}
