package dev.outboxjava.core.relay;

import java.time.Duration;

/**
 * What one relay tick did.
 *
 * @param leased       events leased
 * @param published    events acknowledged by the broker and marked sent
 * @param retried      failed events returned to pending for a later attempt
 * @param deadLettered failed events moved to the dead letter state
 * @param released     events returned to pending untried (attempts unchanged)
 * @param leaseLost    events whose mark was refused because their lease had changed; not counted as sent
 * @param elapsed      wall time of the tick
 */
public record RelayResult(
        int leased, int published, int retried, int deadLettered, int released, int leaseLost, Duration elapsed) {

    public static RelayResult idle(Duration elapsed) {
        return new RelayResult(0, 0, 0, 0, 0, 0, elapsed);
    }
}
