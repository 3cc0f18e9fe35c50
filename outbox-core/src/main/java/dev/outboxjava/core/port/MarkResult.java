package dev.outboxjava.core.port;

import java.util.Set;
import java.util.UUID;

/**
 * What a {@code mark…} call did, per event.
 *
 * @param marked    events that carried the presented lease and were changed
 * @param leaseLost events whose lease had changed (or which were gone); nothing was done to them
 */
public record MarkResult(Set<UUID> marked, Set<UUID> leaseLost) {

    public MarkResult {
        marked = Set.copyOf(marked);
        leaseLost = Set.copyOf(leaseLost);
    }

    public static MarkResult empty() {
        return new MarkResult(Set.of(), Set.of());
    }
}
