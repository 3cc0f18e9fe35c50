package dev.outboxjava.worker;

import dev.outboxjava.core.HealthCheck;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The readiness of a {@link MultiOutboxWorker}, outbox by outbox: {@link MultiOutboxWorker#readiness()}.
 *
 * @param ready     the broker answers (or has been down for less than {@link OutboxWorkerConfig#maxBrokerOutage()})
 *                  and no outbox is behind
 * @param broker    the publisher's health check
 * @param outboxes  every outbox relayed now, in name order
 * @param maxLag    how long an eligible event may wait before its outbox is behind ({@link HealthConfig#maxLag()})
 */
public record MultiOutboxReadiness(boolean ready, HealthCheck broker, List<OutboxState> outboxes, Duration maxLag) {

    /**
     * One outbox's part.
     *
     * @param id          which outbox
     * @param lag         how long its oldest eligible event has been due, at the last gauges poll
     * @param behind      whether the lag is over the maximum
     * @param backingOff  why its last step failed, while it waits out its own backoff (its table missing, its
     *                    database down, its destination refusing); empty otherwise
     */
    public record OutboxState(OutboxId id, Duration lag, boolean behind, Optional<String> backingOff) {
        public OutboxState {
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(lag, "lag");
            Objects.requireNonNull(backingOff, "backingOff");
        }
    }

    public MultiOutboxReadiness {
        Objects.requireNonNull(broker, "broker");
        outboxes = List.copyOf(outboxes);
        Objects.requireNonNull(maxLag, "maxLag");
    }

    /** The outboxes that are behind. */
    public List<OutboxState> behind() {
        return outboxes.stream().filter(OutboxState::behind).toList();
    }

    /** The outboxes that wait out their own backoff. */
    public List<OutboxState> backingOff() {
        return outboxes.stream().filter(state -> state.backingOff().isPresent()).toList();
    }

    /** The whole as one health check, naming each outbox that is behind or backing off. */
    public HealthCheck summary() {
        StringBuilder detail = new StringBuilder()
                .append(outboxes.size())
                .append(" outbox(es); broker: ")
                .append(broker.healthy() ? "UP" : "DOWN")
                .append(" (")
                .append(broker.detail())
                .append(")");
        for (OutboxState state : behind()) {
            detail.append("; ")
                    .append(state.id())
                    .append(" is behind: its oldest eligible event has waited ")
                    .append(Durations.format(state.lag()))
                    .append(", over outbox.health.max.lag=")
                    .append(Durations.format(maxLag));
        }
        for (OutboxState state : backingOff()) {
            detail.append("; ")
                    .append(state.id())
                    .append(" backs off: ")
                    .append(state.backingOff().orElseThrow());
        }
        return new HealthCheck(ready, detail.toString());
    }
}
