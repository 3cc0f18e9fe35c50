package dev.outboxjava.examples.faults;

import dev.outboxjava.core.Ordering;
import java.time.Duration;
import java.util.Locale;

/**
 * The size of a fault run. The default-CI run is small (at least 1,500 events and one fault of every kind
 * per broker); {@code -Pfaults-long} in {@code outbox-it/pom.xml} sets {@code outbox.faults.run=long}:
 * at least 100,000 events and at least 50 faults per broker. Single values can be overridden with system
 * properties ({@code outbox.faults.events}, {@code outbox.faults.min-faults}).
 *
 * @param name          ci or long
 * @param events        committed events per broker
 * @param eventsPerSecond producers' pace (0 = as fast as possible)
 * @param minFaults     faults injected per broker, at least
 * @param maxFaults     and at most
 * @param maxPause      random pause before each fault
 * @param drainTimeout  how long the relays may take to drain after the producers are done
 * @param ordering      the relays' ordering (see {@link #current(String)})
 */
record FaultRunConfig(
        String name,
        int events,
        int eventsPerSecond,
        int minFaults,
        int maxFaults,
        Duration maxPause,
        Duration drainTimeout,
        Ordering ordering) {

    static final String RUN_PROPERTY = "outbox.faults.run";

    /**
     * The settings of this run for one broker. Ordering: {@code -Doutbox.faults.ordering=none|per_key} for
     * both brokers; by default Kafka runs per-key (relay processes assembled from the library, since the
     * worker has no ordering setting yet) and RabbitMQ unordered (the worker's own processes), so a default
     * run checks per-key order and exercises the worker.
     */
    static FaultRunConfig current(String broker) {
        String run = System.getProperty(RUN_PROPERTY, "ci").toLowerCase(Locale.ROOT);
        FaultRunConfig base = switch (run) {
            case "ci" ->
                new FaultRunConfig(
                        "ci", 1_500, 60, 6, 6, Duration.ofSeconds(2), Duration.ofMinutes(3), Ordering.none());
            case "long" ->
                new FaultRunConfig(
                        "long",
                        100_000,
                        250,
                        60,
                        1_000,
                        Duration.ofSeconds(4),
                        Duration.ofMinutes(15),
                        Ordering.none());
            default -> throw new IllegalArgumentException(RUN_PROPERTY + " must be ci or long, was " + run);
        };
        int events = Integer.getInteger("outbox.faults.events", base.events());
        int minFaults = Integer.getInteger("outbox.faults.min-faults", base.minFaults());
        String defaultOrdering = "kafka".equals(broker) ? "per_key" : "none";
        String orderingName =
                System.getProperty("outbox.faults.ordering", defaultOrdering).toLowerCase(Locale.ROOT);
        Ordering ordering = switch (orderingName) {
            case "per_key" -> Ordering.perKey(Ordering.AfterDeadLetter.HOLD_KEY);
            case "none" -> Ordering.none();
            default ->
                throw new IllegalArgumentException(
                        "outbox.faults.ordering must be none or per_key, was " + orderingName);
        };
        return new FaultRunConfig(
                base.name(),
                events,
                base.eventsPerSecond(),
                minFaults,
                Math.max(minFaults, base.maxFaults()),
                base.maxPause(),
                base.drainTimeout(),
                ordering);
    }
}
