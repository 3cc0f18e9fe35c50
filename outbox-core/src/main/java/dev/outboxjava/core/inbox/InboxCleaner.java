package dev.outboxjava.core.inbox;

import java.time.Clock;
import java.time.Instant;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One inbox-cleaner tick: deletes records older than the retention window, in bounded chunks so no
 * statement holds locks or bloats WAL for long. Has no thread of its own; schedule
 * {@link #runOnce()} (e.g. hourly) next to the consumer.
 *
 * <p>The retention is the deduplication window: see {@link InboxCleanerConfig#retention()}.
 */
public final class InboxCleaner {

    private static final Logger log = LoggerFactory.getLogger(InboxCleaner.class);

    private final Inbox<?> inbox;
    private final InboxCleanerConfig settings;
    private final Clock clock;

    public InboxCleaner(Inbox<?> inbox, InboxCleanerConfig settings, Clock clock) {
        this.inbox = Objects.requireNonNull(inbox, "inbox");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** @return how many records were deleted */
    public int runOnce() {
        Instant processedBefore = clock.instant().minus(settings.retention());
        int total = 0;
        for (int chunk = 0; chunk < settings.maxChunksPerTick(); chunk++) {
            int deleted = inbox.cleanUp(processedBefore, settings.chunkSize());
            total += deleted;
            if (deleted < settings.chunkSize()) {
                break;
            }
        }
        if (total > 0) {
            log.debug("deleted {} inbox record(s) processed before {}", total, processedBefore);
        }
        return total;
    }
}
