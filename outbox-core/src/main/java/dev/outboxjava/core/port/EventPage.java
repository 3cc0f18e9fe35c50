package dev.outboxjava.core.port;

import dev.outboxjava.core.OutboxEvent;
import java.util.List;
import java.util.OptionalLong;

/**
 * One page of events in sequence order.
 *
 * @param events the events of the page
 * @param next   the position to continue after for the next page; empty on the last page
 */
public record EventPage(List<OutboxEvent> events, OptionalLong next) {

    public EventPage {
        events = List.copyOf(events);
        java.util.Objects.requireNonNull(next, "next");
    }

    /** The page of {@code fetched} events when one more than {@code limit} was asked for. */
    public static EventPage of(List<OutboxEvent> fetched, int limit) {
        if (fetched.size() <= limit) {
            return new EventPage(fetched, OptionalLong.empty());
        }
        List<OutboxEvent> page = fetched.subList(0, limit);
        return new EventPage(page, OptionalLong.of(page.get(limit - 1).sequence()));
    }
}
