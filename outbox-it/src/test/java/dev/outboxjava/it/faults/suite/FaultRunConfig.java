package dev.outboxjava.it.faults.suite;

import dev.outboxjava.core.Ordering;
import dev.outboxjava.postgres.StoreLayout;
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
 * @param layout        the store's layout (see {@link #current(String)})
 */
record FaultRunConfig(
        String name,
        int events,
        int eventsPerSecond,
        int minFaults,
        int maxFaults,
        Duration maxPause,
        Duration drainTimeout,
        Ordering ordering,
        StoreLayout layout) {

    static final String RUN_PROPERTY = "outbox.faults.run";

    /**
     * The settings of this run for one broker. Ordering: per-key by default, so that every run checks per-key
     * order; {@code -Doutbox.faults.ordering=none|per_key} sets it for both brokers. Layout: Kafka runs on the
     * append-only layout (the default), RabbitMQ in place, so that a default run checks both layouts;
     * {@code -Doutbox.faults.layout=append_log|in_place} sets it for both brokers.
     */
    static FaultRunConfig current(String broker) {
        String run = System.getProperty(RUN_PROPERTY, "ci").toLowerCase(Locale.ROOT);
        FaultRunConfig base = switch (run) {
            case "ci" ->
                new FaultRunConfig(
                        "ci",
                        1_500,
                        60,
                        6,
                        6,
                        Duration.ofSeconds(2),
                        Duration.ofMinutes(3),
                        Ordering.none(),
                        StoreLayout.APPEND_LOG);
            case "long" ->
                new FaultRunConfig(
                        "long",
                        100_000,
                        250,
                        60,
                        1_000,
                        Duration.ofSeconds(4),
                        Duration.ofMinutes(15),
                        Ordering.none(),
                        StoreLayout.APPEND_LOG);
            default -> throw new IllegalArgumentException(RUN_PROPERTY + " must be ci or long, was " + run);
        };
        int events = Integer.getInteger("outbox.faults.events", base.events());
        int minFaults = Integer.getInteger("outbox.faults.min-faults", base.minFaults());
        String orderingName =
                System.getProperty("outbox.faults.ordering", "per_key").toLowerCase(Locale.ROOT);
        Ordering ordering = switch (orderingName) {
            case "per_key" -> Ordering.perKey(Ordering.AfterDeadLetter.HOLD_KEY);
            case "none" -> Ordering.none();
            default ->
                throw new IllegalArgumentException(
                        "outbox.faults.ordering must be none or per_key, was " + orderingName);
        };
        String defaultLayout = "kafka".equals(broker) ? "append_log" : "in_place";
        String layoutName =
                System.getProperty("outbox.faults.layout", defaultLayout).toLowerCase(Locale.ROOT);
        StoreLayout layout = switch (layoutName) {
            case "append_log" -> StoreLayout.APPEND_LOG;
            case "in_place" -> StoreLayout.IN_PLACE;
            default ->
                throw new IllegalArgumentException(
                        "outbox.faults.layout must be append_log or in_place, was " + layoutName);
        };
        return new FaultRunConfig(
                base.name(),
                events,
                base.eventsPerSecond(),
                minFaults,
                Math.max(minFaults, base.maxFaults()),
                base.maxPause(),
                base.drainTimeout(),
                ordering,
                layout);
    }
}
