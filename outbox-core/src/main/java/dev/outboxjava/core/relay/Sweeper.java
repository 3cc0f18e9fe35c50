package dev.outboxjava.core.relay;

import dev.outboxjava.core.port.OutboxStore;
import java.time.Clock;
import java.time.Instant;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One sweeper tick: events leased longer ago than the lease timeout go back to pending, attempts
 * unchanged (the relay that held them died or stalled; it was not the event's fault). Works in
 * bounded chunks; stops early when a chunk comes back short.
 */
public final class Sweeper {

    private static final Logger log = LoggerFactory.getLogger(Sweeper.class);

    private final OutboxStore store;
    private final SweeperConfig settings;
    private final Clock clock;

    public Sweeper(OutboxStore store, SweeperConfig settings, Clock clock) {
        this.store = Objects.requireNonNull(store, "store");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** @return how many events were reclaimed */
    public int runOnce() {
        Instant leasedBefore = clock.instant().minus(settings.leaseTimeout());
        int total = 0;
        for (int chunk = 0; chunk < settings.maxChunksPerTick(); chunk++) {
            int reclaimed = store.sweepExpiredLeases(leasedBefore, settings.chunkSize());
            total += reclaimed;
            if (reclaimed < settings.chunkSize()) {
                break;
            }
        }
        if (total > 0) {
            log.info(
                    "reclaimed {} event(s) whose lease expired (leased before {}); they will be published again",
                    total,
                    leasedBefore);
        }
        return total;
    }
}
