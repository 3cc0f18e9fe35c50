package dev.outboxjava.it.faults;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A fixed number of relays (processes, typically) that the harness kills at random and restarts under a
 * new name. Keeps the lease-lost counts of the relays it replaced, so nothing is forgotten.
 */
public final class RelayFleet implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RelayFleet.class);

    private final Function<String, ? extends RelayHandle> launcher;
    private final List<RelayHandle> running = new ArrayList<>();
    private final List<RelayHandle> retired = new ArrayList<>();
    private int started;

    /**
     * Starts {@code size} relays.
     *
     * @param launcher starts a relay given its name ({@code relay-1}, {@code relay-2}, ...)
     */
    public RelayFleet(int size, Function<String, ? extends RelayHandle> launcher) {
        this.launcher = Objects.requireNonNull(launcher, "launcher");
        for (int i = 0; i < size; i++) {
            running.add(launch());
        }
    }

    private RelayHandle launch() {
        started++;
        return launcher.apply("relay-" + started);
    }

    /** Kills one running relay chosen at random (SIGKILL for a process) and returns it. */
    public synchronized RelayHandle killRandom(Random random) {
        RelayHandle victim = running.remove(random.nextInt(running.size()));
        victim.kill();
        retired.add(victim);
        log.info("killed {}", victim);
        return victim;
    }

    /** Starts relays until the fleet has {@code size} running again; replaces any that died on their own. */
    public synchronized void refill(int size) {
        for (RelayHandle relay : List.copyOf(running)) {
            if (!relay.isAlive()) {
                log.warn("{} died on its own; replacing it", relay);
                running.remove(relay);
                retired.add(relay);
            }
        }
        while (running.size() < size) {
            running.add(launch());
        }
    }

    /** The relays running now. */
    public synchronized List<RelayHandle> running() {
        return List.copyOf(running);
    }

    /** Every relay ever started by this fleet. */
    public synchronized List<RelayHandle> all() {
        List<RelayHandle> all = new ArrayList<>(retired);
        all.addAll(running);
        return all;
    }

    /** The events whose marks came back lease-lost, over every relay of the fleet, past and present. */
    public synchronized Set<UUID> leaseLostIds() {
        Set<UUID> ids = new HashSet<>();
        all().forEach(relay -> ids.addAll(relay.leaseLostIds()));
        return ids;
    }

    @Override
    public synchronized void close() {
        running.forEach(RelayHandle::close);
        retired.addAll(running);
        running.clear();
    }
}
