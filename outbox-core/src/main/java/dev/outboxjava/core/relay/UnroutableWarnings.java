package dev.outboxjava.core.relay;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.RetryPolicy;
import dev.outboxjava.core.port.PublishOutcome;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Warns about unroutable destinations at most once per destination per {@link #INTERVAL}: loud
 * enough that an operator sees a missing exchange or topic at once, quiet enough that a busy one does
 * not flood the log. The warning names the destination, one event, the broker's reason, how many
 * more events failed the same way since the last warning, and the setting that bounds their attempts.
 */
final class UnroutableWarnings {

    /** At most one warning per destination in this interval. */
    static final Duration INTERVAL = Duration.ofMinutes(1);
    /** The worker setting of {@link RetryPolicy#unroutableMaxAttempts()}. */
    static final String SETTING = dev.outboxjava.core.DeadLetterReason.UNROUTABLE_BUDGET_SETTING;

    /** Beyond this many destinations remembered, those whose interval is over are forgotten. */
    private static final int PRUNE_ABOVE = 1_000;

    private static final Logger log = LoggerFactory.getLogger(Relay.class);

    private final Clock clock;
    private final int budget;
    private final Map<String, Window> windows = new ConcurrentHashMap<>();

    UnroutableWarnings(Clock clock, RetryPolicy policy) {
        this.clock = clock;
        this.budget = policy.unroutableMaxAttempts();
    }

    /**
     * Counts the failure and warns if its destination was not warned about within the interval.
     *
     * @return whether it warned
     */
    boolean failed(OutboxEvent event, PublishOutcome.Failed failure) {
        Instant now = clock.instant();
        if (windows.size() > PRUNE_ABOVE) {
            windows.values().removeIf(window -> !now.isBefore(window.since.plus(INTERVAL)));
        }
        String destination = event.destination();
        long[] suppressed = {-1};
        windows.compute(destination, (name, window) -> {
            if (window == null || !now.isBefore(window.since.plus(INTERVAL))) {
                suppressed[0] = window == null ? 0 : window.suppressed;
                return new Window(now, 0);
            }
            return new Window(window.since, window.suppressed + 1);
        });
        if (suppressed[0] >= 0) {
            Relay.withMdc(
                    event,
                    "unroutable",
                    () -> log.warn(
                            "destination '{}' is unroutable, event {} not "
                                    + "published: {}. Each such event is dead-lettered after {} attempt(s) ({}; "
                                    + "RetryPolicy.unroutableMaxAttempts in code). {} more such failure(s) for this destination "
                                    + "since the last warning; next warning in {} s at the earliest",
                            destination,
                            event.id(),
                            failure.reason(),
                            budget,
                            SETTING,
                            suppressed[0],
                            INTERVAL.toSeconds()));
            return true;
        }
        return false;
    }

    private record Window(Instant since, long suppressed) {}
}
