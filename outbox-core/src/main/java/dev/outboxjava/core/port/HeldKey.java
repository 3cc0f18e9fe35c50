package dev.outboxjava.core.port;

import dev.outboxjava.core.OutboxEvent;
import java.util.Objects;

/**
 * A key whose later events wait behind one of its events that failed.
 *
 * @param key     the key
 * @param holder  the earliest failed event of the key: a dead letter, or an event waiting for a retry
 * @param waiting how many later pending events of the key wait behind it
 */
public record HeldKey(String key, OutboxEvent holder, long waiting) {

    public HeldKey {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(holder, "holder");
    }
}
