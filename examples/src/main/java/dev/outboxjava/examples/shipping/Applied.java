package dev.outboxjava.examples.shipping;

import java.util.List;

/**
 * What one batch of received events did.
 *
 * @param applied    events seen for the first time: their effect is now committed
 * @param duplicates events already processed before (a redelivery or a re-publish): skipped
 */
public record Applied(List<ReceivedEvent> applied, List<ReceivedEvent> duplicates) {

    public Applied {
        applied = List.copyOf(applied);
        duplicates = List.copyOf(duplicates);
    }
}
