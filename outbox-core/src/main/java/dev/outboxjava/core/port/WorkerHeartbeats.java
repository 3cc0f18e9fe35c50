package dev.outboxjava.core.port;

import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

/**
 * Where the workers of an outbox table record their {@linkplain WorkerHeartbeat heartbeats}, so an operator
 * sees every worker, not only the one that answers ({@link OperatorStore#workers(int)}). Each call is one short
 * statement.
 */
public interface WorkerHeartbeats {

    /**
     * Empty when heartbeats can be recorded; otherwise why not and how to make it possible (e.g. the table
     * they go in does not exist, and what creates it).
     *
     * @throws dev.outboxjava.core.OutboxStoreException when the store cannot be asked
     */
    Optional<String> unavailable();

    /**
     * Records {@code heartbeat}, replacing the one its worker recorded before.
     *
     * @throws dev.outboxjava.core.OutboxStoreException when it cannot be recorded
     */
    void beat(WorkerHeartbeat heartbeat);

    /**
     * Removes the heartbeat of {@code workerId} (the worker stops cleanly); nothing when there is none.
     *
     * @throws dev.outboxjava.core.OutboxStoreException when it cannot be removed
     */
    void remove(UUID workerId);

    /**
     * Deletes the heartbeats whose last beat is before {@code beatBefore}: workers gone long ago.
     *
     * @return how many were deleted
     * @throws dev.outboxjava.core.OutboxStoreException when they cannot be deleted
     */
    int forgetBeatenBefore(Instant beatBefore);
}
