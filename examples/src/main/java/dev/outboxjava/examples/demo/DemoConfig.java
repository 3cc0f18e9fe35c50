package dev.outboxjava.examples.demo;

import dev.outboxjava.relayapp.BrokerKind;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * What the demo does and against which services.
 *
 * @param broker       Kafka or RabbitMQ
 * @param dbUrl        a PostgreSQL JDBC URL to use instead of an embedded PostgreSQL
 * @param dbUser       its user
 * @param dbPassword   its password
 * @param kafka        Kafka bootstrap servers to use instead of an in-process broker
 * @param rabbitMqUri  an AMQP URI to use instead of a local or embedded broker
 * @param orders       how many orders to place
 * @param threads      how many threads place them
 * @param killAt       the fraction of orders published when the first relay is killed (0 to 1)
 * @param timeout      how long nothing may move (no order written, no event published or consumed)
 *                     before the demo gives up
 */
public record DemoConfig(
        BrokerKind broker,
        Optional<String> dbUrl,
        String dbUser,
        String dbPassword,
        Optional<String> kafka,
        Optional<String> rabbitMqUri,
        int orders,
        int threads,
        double killAt,
        Duration timeout) {

    public DemoConfig {
        Objects.requireNonNull(broker, "broker");
        Objects.requireNonNull(dbUrl, "dbUrl");
        Objects.requireNonNull(dbUser, "dbUser");
        Objects.requireNonNull(dbPassword, "dbPassword");
        Objects.requireNonNull(kafka, "kafka");
        Objects.requireNonNull(rabbitMqUri, "rabbitMqUri");
        Objects.requireNonNull(timeout, "timeout");
        if (orders < 1) {
            throw new IllegalArgumentException("--orders must be at least 1, was " + orders);
        }
        if (threads < 1 || threads > 64) {
            throw new IllegalArgumentException("--threads must be between 1 and 64, was " + threads);
        }
        if (killAt <= 0 || killAt >= 1) {
            throw new IllegalArgumentException("--kill-at must be between 0 and 1 (exclusive), was " + killAt);
        }
    }

    /** Embedded everything, {@code orders} orders from {@code threads} threads. */
    public static DemoConfig embedded(BrokerKind broker, int orders, int threads) {
        return new DemoConfig(
                broker,
                Optional.empty(),
                "postgres",
                "postgres",
                Optional.empty(),
                Optional.empty(),
                orders,
                threads,
                0.3,
                Duration.ofSeconds(90));
    }
}
