package dev.outboxjava.core.port;

import java.util.Objects;

/**
 * The unfinished events of one destination.
 *
 * @param destination the Kafka topic or RabbitMQ exchange
 * @param pending     waiting to be leased (due or not)
 * @param inFlight    leased now
 * @param failed      dead letters
 */
public record DestinationCounts(String destination, long pending, long inFlight, long failed) {

    public DestinationCounts {
        Objects.requireNonNull(destination, "destination");
    }
}
