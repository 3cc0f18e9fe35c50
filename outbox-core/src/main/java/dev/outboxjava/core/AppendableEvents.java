package dev.outboxjava.core;

import java.util.Collection;
import java.util.HashSet;
import java.util.Set;
import java.util.UUID;

/**
 * What a store checks before it writes anything: a list, no null element, only new pending events,
 * no id twice, and each event's content rules (storable text, a URI-reference source, accepted headers,
 * storable times) — the same rules the {@link OutboxEvent#builder() builder} applies, for events
 * assembled some other way. A refusal happens before the first statement, so the caller's
 * transaction stays usable.
 */
public final class AppendableEvents {

    private AppendableEvents() {}

    /**
     * Checks {@code events} as a store does before it writes them.
     *
     * @throws InvalidEventException naming the field ({@code events} for a null list or element)
     *                               when something cannot be appended
     */
    public static void require(Collection<OutboxEvent> events) {
        if (events == null) {
            throw new InvalidEventException("events", "is null; pass List.of() when there is nothing to append");
        }
        int index = 0;
        Set<UUID> ids = new HashSet<>();
        for (OutboxEvent event : events) {
            if (event == null) {
                throw new InvalidEventException(
                        "events",
                        "element " + index + " is null; every element must be an "
                                + "event from OutboxEvent.builder()");
            }
            if (event.status() != EventStatus.PENDING) {
                throw new InvalidEventException(
                        "status",
                        "only new pending events can be appended; event " + event.id() + " is " + event.status());
            }
            if (!ids.add(event.id())) {
                // the append-only log's key cannot refuse it (its partitions are by sequence): refused here
                throw new InvalidEventException(
                        "id", "event " + event.id() + " appears twice in one append; each event needs its own id");
            }
            EventContent.check(event);
            index++;
        }
    }
}
