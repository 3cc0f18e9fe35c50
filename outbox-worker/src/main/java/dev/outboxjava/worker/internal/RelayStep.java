package dev.outboxjava.worker.internal;

import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.core.relay.Relay;
import dev.outboxjava.core.relay.RelayResult;
import java.time.Duration;
import java.util.Objects;

/**
 * One relay thread's step: a tick, then at once again while batches come back full, else idle
 * until the poll interval or a wake-up.
 *
 * <p>Outages: a store failure backs off; a tick in which the broker took nothing and the
 * publisher's health check says it is down counts as a broker outage: the loop backs off and,
 * while the broker stays down, only probes its health instead of leasing (so an outage does not
 * spend every event's attempts). Each is logged once by its shared {@link OutageTracker}.
 */
public final class RelayStep implements LoopStep {

    private final String name;
    private final Relay relay;
    private final Publisher publisher;
    private final LeaseTrackingStore leases;
    private final Duration pollInterval;
    private final Backoff backoff;
    private final OutageTracker storeOutage;
    private final OutageTracker brokerOutage;
    private final OutageTracker bug;
    private int consecutiveFailures;
    private boolean brokerDown;

    public RelayStep(String name, Relay relay, Publisher publisher, LeaseTrackingStore leases, Duration pollInterval,
            Backoff backoff, OutageTracker storeOutage, OutageTracker brokerOutage, OutageTracker bug) {
        this.name = Objects.requireNonNull(name, "name");
        this.relay = Objects.requireNonNull(relay, "relay");
        this.publisher = Objects.requireNonNull(publisher, "publisher");
        this.leases = Objects.requireNonNull(leases, "leases");
        this.pollInterval = Objects.requireNonNull(pollInterval, "pollInterval");
        this.backoff = Objects.requireNonNull(backoff, "backoff");
        this.storeOutage = Objects.requireNonNull(storeOutage, "storeOutage");
        this.brokerOutage = Objects.requireNonNull(brokerOutage, "brokerOutage");
        this.bug = Objects.requireNonNull(bug, "bug");
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Next step() {
        if (brokerDown) {
            HealthCheck health = brokerHealth();
            if (!health.healthy()) {
                brokerOutage.failed(health.detail(), null);
                return pause();
            }
        }
        RelayResult result;
        try {
            result = relay.runOnce();
        } catch (Throwable failure) {
            Failures.rethrowFatal(failure);
            if (Failures.isStoreOutage(failure)) {
                storeOutage.failed(Failures.describe(failure), failure);
            } else {
                bug.failed(name + " tick threw " + Failures.describe(failure), failure);
            }
            return pause();
        } finally {
            leases.tickEnded();
        }
        storeOutage.succeeded();
        bug.succeeded();
        if (result.leased() > 0 && result.published() == 0 && result.retried() > 0) {
            HealthCheck health = brokerHealth();
            if (!health.healthy()) {
                brokerDown = true;
                brokerOutage.failed(result.retried() + " of " + result.leased() + " events failed and the broker "
                        + "health check says: " + health.detail(), null);
                return pause();
            }
        }
        if (result.published() > 0 || result.leased() == 0 || brokerDown) {
            brokerDown = false;
            brokerOutage.succeeded();
        }
        consecutiveFailures = 0;
        return result.leased() >= relay.settings().batchSize() ? Next.NOW : Next.idle(pollInterval);
    }

    private Next pause() {
        consecutiveFailures++;
        return Next.backoff(backoff.delayAfter(consecutiveFailures));
    }

    private HealthCheck brokerHealth() {
        try {
            return publisher.checkHealth();
        } catch (Throwable failure) {
            Failures.rethrowFatal(failure);
            return HealthCheck.down("health check threw " + failure);
        }
    }
}
