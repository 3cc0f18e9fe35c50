package dev.outboxjava.testkit.rabbitmq;

import java.util.Objects;

/**
 * An isolated place to publish to in one test: a topic exchange whose every message (binding key
 * {@code #}) lands in one queue. Created by {@link RabbitMqFixture#createDestination(String)}.
 *
 * @param exchange the exchange to publish to (the outbox event's destination)
 * @param queue    the queue bound to it, to read what arrived
 */
public record RabbitMqDestination(String exchange, String queue) {

    public RabbitMqDestination {
        Objects.requireNonNull(exchange, "exchange");
        Objects.requireNonNull(queue, "queue");
    }
}
