package dev.outboxjava.core.port;

import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * A lease held now: a relay's batch in flight.
 *
 * @param leaseId  the lease
 * @param events   how many events it holds
 * @param leasedAt when it was taken
 */
public record ActiveLease(UUID leaseId, long events, Instant leasedAt) {

    public ActiveLease {
        Objects.requireNonNull(leaseId, "leaseId");
        Objects.requireNonNull(leasedAt, "leasedAt");
    }
}
