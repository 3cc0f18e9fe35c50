package dev.outboxjava.worker.internal;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Notices a wake-up that is configured but never arrives: the relay keeps finding, at its poll,
 * events appended while it waited for the signal. Polling hides the mistake (every event still goes
 * out, up to one poll interval late), so it is logged once at WARN, naming what should signal.
 *
 * <p>One late find proves nothing (a commit can land just as the poll begins); {@value #WARN_AFTER}
 * polls in a row, each finding new events with no wake-up in between, do. Shared by the relay threads.
 */
public final class MissedWakeUps {

    /** Successive polls that found new events without a wake-up before the warning. */
    public static final int WARN_AFTER = 3;

    private static final Logger log = LoggerFactory.getLogger(MissedWakeUps.class);
    private static final MissedWakeUps NONE = new MissedWakeUps(null, Duration.ZERO);

    private final String expected;
    private final Duration pollInterval;
    private final AtomicInteger unannounced = new AtomicInteger();
    private final AtomicBoolean warned = new AtomicBoolean();

    private MissedWakeUps(String expected, Duration pollInterval) {
        this.expected = expected;
        this.pollInterval = pollInterval;
    }

    /**
     * Watches for a wake-up that should come.
     *
     * @param expected what should wake the relay, for the warning, e.g. "a NOTIFY on channel outbox_events
     *                 after each commit (WakeUpMode.NOTIFY_AFTER_COMMIT)"
     */
    public static MissedWakeUps expecting(String expected, Duration pollInterval) {
        return new MissedWakeUps(expected, pollInterval);
    }

    /** Nothing is expected but polling: nothing to warn about. */
    public static MissedWakeUps none() {
        return NONE;
    }

    /** A wake-up arrived: the signalling works. */
    void woken() {
        unannounced.set(0);
    }

    /** A poll (a wait that ended without a wake-up) found {@code newEvents} events appended during the wait. */
    void polled(int newEvents) {
        if (expected == null) {
            return;
        }
        if (newEvents == 0) {
            return;
        }
        if (unannounced.incrementAndGet() >= WARN_AFTER && warned.compareAndSet(false, true)) {
            log.warn(
                    "the relay expects {}, but {} polls in a row found new events that no wake-up announced: "
                            + "they go out up to {} late. Let whoever appends signal after the commit (TransactionalOutbox, "
                            + "OutboxNotifier.signal(), OutboxWorker.wakeUp().signal(), or the Spring Boot starter, which "
                            + "does it), or choose the wake-up mode NONE if polling is intended",
                    expected,
                    WARN_AFTER,
                    dev.outboxjava.worker.Durations.format(pollInterval));
        }
    }

    /** Whether the warning was logged (for tests). */
    public boolean warned() {
        return warned.get();
    }
}
