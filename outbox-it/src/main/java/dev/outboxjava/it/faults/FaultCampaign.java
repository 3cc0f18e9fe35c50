package dev.outboxjava.it.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Injects faults one after another, with random pauses, while the producers write: round after round,
 * each round every injector once in a random order (so every kind is covered evenly), until at least
 * {@code minimumFaults} were injected and {@code keepGoing} says stop (e.g. the producers are done).
 * An injector that fails fails the campaign: a fault that could not be injected proves nothing.
 */
public final class FaultCampaign {

    private static final Logger log = LoggerFactory.getLogger(FaultCampaign.class);

    private FaultCampaign() {}

    /**
     * @param injectors     the faults to inject
     * @param minimumFaults inject at least this many
     * @param maximumFaults and at most this many
     * @param maxPause      a random pause in [0, maxPause) before each fault: faults strike at random moments
     * @param keepGoing     after the minimum, go on while this is true
     * @return the faults injected, in order
     */
    public static List<InjectedFault> run(
            List<FaultInjector> injectors,
            int minimumFaults,
            int maximumFaults,
            Duration maxPause,
            Random random,
            BooleanSupplier keepGoing)
            throws Exception {
        Objects.requireNonNull(random, "random");
        if (injectors.isEmpty()) {
            throw new IllegalArgumentException("no fault injectors");
        }
        List<InjectedFault> injected = new ArrayList<>();
        List<FaultInjector> round = new ArrayList<>();
        while (injected.size() < maximumFaults && (injected.size() < minimumFaults || keepGoing.getAsBoolean())) {
            if (round.isEmpty()) {
                round.addAll(injectors);
                Collections.shuffle(round, random);
            }
            FaultInjectors.sleep(Duration.ofMillis((long) (random.nextDouble() * maxPause.toMillis())));
            InjectedFault fault = round.remove(0).inject();
            injected.add(fault);
            log.info("fault {}: {}", injected.size(), fault);
        }
        return injected;
    }
}
