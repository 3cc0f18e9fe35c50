package dev.outboxjava.core.relay;

import dev.outboxjava.core.port.OutboxStore;
import java.time.Clock;
import java.time.Instant;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One cleaner tick: deletes sent events older than the retention window, in bounded chunks so no
 * statement holds locks or bloats WAL for long. Dead letters are kept for an operator.
 */
public final class Cleaner {

    private static final Logger log = LoggerFactory.getLogger(Cleaner.class);

    private final OutboxStore store;
    private final CleanerConfig settings;
    private final Clock clock;

    public Cleaner(OutboxStore store, CleanerConfig settings, Clock clock) {
        this.store = Objects.requireNonNull(store, "store");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** @return how many events were deleted */
    public int runOnce() {
        Instant sentBefore = clock.instant().minus(settings.retention());
        int total = 0;
        for (int chunk = 0; chunk < settings.maxChunksPerTick(); chunk++) {
            int deleted = store.cleanUp(sentBefore, settings.chunkSize());
            total += deleted;
            if (deleted < settings.chunkSize()) {
                break;
            }
        }
        if (total > 0) {
            log.debug("deleted {} sent event(s) older than {}", total, sentBefore);
        }
        return total;
    }
}
