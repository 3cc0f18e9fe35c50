package dev.outboxjava.it.faults;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.testkit.kafka.EmbeddedKafkaBroker;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The standard faults. Each factory returns a {@link FaultInjector} that injects one fault when called,
 * waits until it is over, and opens an {@link ExposureLog} window around it.
 */
public final class FaultInjectors {

    private static final Logger log = LoggerFactory.getLogger(FaultInjectors.class);

    private FaultInjectors() {}

    /**
     * SIGKILL of a random relay of the fleet at a random moment, and a restart after {@code downFor}.
     */
    public static FaultInjector relayKill(
            RelayFleet fleet, int fleetSize, ExposureLog exposure, Random random, Duration downFor) {
        return () -> {
            Instant start = Instant.now();
            exposure.open(FaultKind.RELAY_KILL);
            try {
                RelayHandle victim = fleet.killRandom(random);
                exposure.sample(FaultKind.RELAY_KILL); // what the dead relay held is still in flight
                sleep(downFor);
                fleet.refill(fleetSize);
                return new InjectedFault(
                        FaultKind.RELAY_KILL,
                        "SIGKILL " + victim + ", restarted",
                        start,
                        Duration.between(start, Instant.now()));
            } finally {
                exposure.close(FaultKind.RELAY_KILL);
            }
        };
    }

    /**
     * An in-JVM relay that dies between the broker's acknowledgement and its mark: the acknowledged events
     * stay in flight until a sweeper reclaims them, then go out again (duplicates with the same id).
     *
     * @param relays starts a fresh in-JVM relay competing with the others
     * @param within how long to wait for the relay to get a batch acknowledged
     */
    public static FaultInjector crashAfterAck(Supplier<InJvmRelay> relays, ExposureLog exposure, Duration within) {
        return () -> {
            Instant start = Instant.now();
            exposure.open(FaultKind.CRASH_AFTER_ACK);
            InJvmRelay relay = relays.get();
            try {
                List<OutboxEvent> unmarked = relay.crashAfterNextAck().get(within.toMillis(), TimeUnit.MILLISECONDS);
                exposure.sample(FaultKind.CRASH_AFTER_ACK);
                return new InjectedFault(
                        FaultKind.CRASH_AFTER_ACK,
                        relay.name() + " died after the broker " + "acknowledged " + unmarked.size()
                                + " event(s), before marking them",
                        start,
                        Duration.between(start, Instant.now()));
            } catch (TimeoutException e) {
                relay.close();
                throw new IllegalStateException(
                        "in-JVM relay " + relay.name() + " got no batch acknowledged within " + within
                                + ": are producers writing?",
                        e);
            } finally {
                relay.kill();
                exposure.close(FaultKind.CRASH_AFTER_ACK);
            }
        };
    }

    /**
     * A relay process that halts between the broker's acknowledgement and its mark ({@link HaltAfterAck}
     * installed in its main method): the process is gone, its acknowledged batch stays in flight until a
     * sweeper reclaims it, then goes out again (duplicates with the same id).
     *
     * @param relays starts such a process
     * @param within how long to wait for it to get a batch acknowledged and halt
     */
    public static FaultInjector processCrashAfterAck(
            Supplier<RelayProcess> relays, ExposureLog exposure, Duration within) {
        return () -> {
            Instant start = Instant.now();
            exposure.open(FaultKind.CRASH_AFTER_ACK);
            RelayProcess relay = relays.get();
            try {
                long deadline = System.nanoTime() + within.toNanos();
                while (relay.isAlive()) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("relay process " + relay + " did not halt after an "
                                + "acknowledgement within " + within + "; its output:\n" + relay.outputTail(30));
                    }
                    sleep(Duration.ofMillis(20));
                }
                exposure.sample(FaultKind.CRASH_AFTER_ACK);
                String line = relay.output()
                        .lines()
                        .filter(l -> l.contains(HaltAfterAck.MARKER))
                        .findFirst()
                        .orElseThrow(() -> new IllegalStateException("relay process " + relay + " exited without "
                                + "halting after an acknowledgement; its output:\n" + relay.outputTail(30)));
                return new InjectedFault(
                        FaultKind.CRASH_AFTER_ACK,
                        relay + " " + line.substring(line.indexOf(HaltAfterAck.MARKER)),
                        start,
                        Duration.between(start, Instant.now()));
            } finally {
                relay.kill();
                exposure.close(FaultKind.CRASH_AFTER_ACK);
            }
        };
    }

    /**
     * An in-JVM relay whose publisher hangs for {@code hangFor} (longer than the lease timeout plus the
     * relay's publish timeout and grace): the sweepers reclaim its batch, other relays publish it, the
     * relay's late mark is refused as lease-lost, and the hung batch finally reaches the broker late.
     */
    public static FaultInjector publisherHang(
            Supplier<InJvmRelay> relays, ExposureLog exposure, Duration hangFor, Duration within) {
        return () -> {
            Instant start = Instant.now();
            exposure.open(FaultKind.PUBLISHER_HANG);
            InJvmRelay relay = relays.get();
            try {
                relay.publisher().hang();
                long deadline = System.nanoTime() + within.toNanos();
                while (relay.publisher().hungBatchCount() == 0) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("in-JVM relay " + relay.name() + " leased nothing within "
                                + within + ": are producers writing?");
                    }
                    sleep(Duration.ofMillis(50));
                }
                exposure.sample(FaultKind.PUBLISHER_HANG);
                sleep(hangFor);
                relay.publisher().releaseHung();
                sleep(Duration.ofSeconds(1));
                return new InjectedFault(
                        FaultKind.PUBLISHER_HANG,
                        relay.name() + "'s publisher hung for " + hangFor.toMillis() + " ms; lease-lost marks so far: "
                                + relay.leaseLostCount(),
                        start,
                        Duration.between(start, Instant.now()));
            } finally {
                relay.close();
                exposure.close(FaultKind.PUBLISHER_HANG);
            }
        };
    }

    /**
     * An in-JVM relay whose clock runs {@code skew} ahead of the others (more than the lease timeout), for
     * {@code runFor}: its sweeper takes fresh leases away from the other relays (their marks come back
     * lease-lost; duplicates, no loss). The skew is measured against the database first and a violation of
     * the budget is logged, as a relay should do at start.
     *
     * @param relays        starts an in-JVM relay with the given clock
     * @param database      for measuring the skew against the database clock
     * @param leaseTimeout  the fleet's lease timeout
     * @param publishTimeout the fleet's publish timeout
     */
    public static FaultInjector clockSkew(
            Function<Clock, InJvmRelay> relays,
            ExposureLog exposure,
            Duration skew,
            Duration runFor,
            DataSource database,
            Duration leaseTimeout,
            Duration publishTimeout) {
        return () -> {
            Instant start = Instant.now();
            exposure.open(FaultKind.CLOCK_SKEW);
            Clock skewed = Clock.offset(Clock.systemUTC(), skew);
            Duration measured = ClockSkewCheck.measure(database, skewed);
            boolean within = ClockSkewCheck.withinBudget(measured, leaseTimeout, publishTimeout);
            if (!within) {
                log.warn(
                        "clock skew violation detected: relay clock is {} ms off the database clock, budget "
                                + "leaseTimeout - publishTimeout = {} ms",
                        measured.toMillis(),
                        leaseTimeout.minus(publishTimeout).toMillis());
            }
            InJvmRelay relay = relays.apply(skewed);
            try {
                sleep(runFor);
                return new InjectedFault(
                        FaultKind.CLOCK_SKEW,
                        relay.name() + " ran " + runFor.toMillis()
                                + " ms with its clock " + measured.toMillis() + " ms off the database's (violation "
                                + (within ? "NOT " : "") + "detected at start)",
                        start,
                        Duration.between(start, Instant.now()));
            } finally {
                relay.close();
                exposure.close(FaultKind.CLOCK_SKEW);
            }
        };
    }

    /** The in-process Kafka broker stopped for {@code downFor}, then restarted on the same log directory. */
    public static FaultInjector kafkaOutage(
            EmbeddedKafkaBroker broker, ExposureLog exposure, Duration downFor, Duration settle) {
        Objects.requireNonNull(broker, "broker");
        return () -> {
            Instant start = Instant.now();
            exposure.open(FaultKind.BROKER_OUTAGE);
            try {
                broker.stop();
                sleep(downFor);
                broker.restart();
                sleep(settle);
                return new InjectedFault(
                        FaultKind.BROKER_OUTAGE,
                        "Kafka broker stopped for " + downFor.toMillis() + " ms, restarted on the same log directory",
                        start,
                        Duration.between(start, Instant.now()));
            } finally {
                exposure.close(FaultKind.BROKER_OUTAGE);
            }
        };
    }

    /** The relays' own RabbitMQ connections closed by the broker ({@link RabbitMqConnectionCloser}). */
    public static FaultInjector rabbitMqConnectionsClosed(
            RabbitMqConnectionCloser closer, ExposureLog exposure, Duration settle) {
        return () -> {
            Instant start = Instant.now();
            exposure.open(FaultKind.BROKER_OUTAGE);
            try {
                int closed = retryUntilSomething(
                        () -> closer.closeConnections("fault injected by the outbox fault " + "harness"),
                        "no RabbitMQ connection of the relays found to close");
                sleep(settle);
                return new InjectedFault(
                        FaultKind.BROKER_OUTAGE,
                        "closed " + closed + " relay connection(s) " + "on the RabbitMQ broker",
                        start,
                        Duration.between(start, Instant.now()));
            } finally {
                exposure.close(FaultKind.BROKER_OUTAGE);
            }
        };
    }

    /** The relays' own database sessions terminated ({@link PostgresSessionTerminator}). */
    public static FaultInjector postgresSessionsTerminated(
            PostgresSessionTerminator terminator, ExposureLog exposure, Duration settle) {
        return () -> {
            Instant start = Instant.now();
            exposure.open(FaultKind.DATABASE_DISRUPTION);
            try {
                int terminated = retryUntilSomething(
                        terminator::terminate, "no database session of the relays found to terminate");
                sleep(settle);
                return new InjectedFault(
                        FaultKind.DATABASE_DISRUPTION,
                        "terminated " + terminated + " relay database session(s)",
                        start,
                        Duration.between(start, Instant.now()));
            } finally {
                exposure.close(FaultKind.DATABASE_DISRUPTION);
            }
        };
    }

    private interface Count {
        int get() throws Exception;
    }

    /** A relay may be between connections (restarting, reconnecting): try again for up to 10 s. */
    private static int retryUntilSomething(Count action, String failure) throws Exception {
        for (int attempt = 0; attempt < 20; attempt++) {
            int count = action.get();
            if (count > 0) {
                return count;
            }
            sleep(Duration.ofMillis(500));
        }
        throw new IllegalStateException(failure + " within 10 s: the fault could not be injected");
    }

    static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while injecting a fault", e);
        }
    }
}
