package dev.outboxjava.spring.boot;

import dev.outboxjava.core.OutboxEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Gives appended events the trace context of the span current in the application (W3C
 * {@code traceparent}), so that consumers continue the producer's trace. Events that carry their own
 * {@code traceparent} keep it.
 */
@FunctionalInterface
public interface OutboxTraceContext {

    /** No tracing in the application: events are appended as they are. */
    OutboxTraceContext NONE = () -> null;

    /** The W3C {@code traceparent} of the current span, or null when none is current. */
    String currentTraceparent();

    /** The events, each with the current {@code traceparent} unless it has one. */
    default List<OutboxEvent> addTo(List<OutboxEvent> events) {
        String traceparent = currentTraceparent();
        if (traceparent == null) {
            return events;
        }
        List<OutboxEvent> traced = new ArrayList<>(events.size());
        for (OutboxEvent event : events) {
            if (event.headers().containsKey("traceparent")) {
                traced.add(event);
            } else {
                Map<String, String> headers = new HashMap<>(event.headers());
                headers.put("traceparent", traceparent);
                traced.add(event.withHeaders(headers));
            }
        }
        return traced;
    }
}
