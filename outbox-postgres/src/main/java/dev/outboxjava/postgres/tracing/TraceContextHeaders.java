package dev.outboxjava.postgres.tracing;

import dev.outboxjava.core.OutboxEvent;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Stores the current OpenTelemetry span's W3C trace context ({@code traceparent}, and
 * {@code tracestate} when there is one) as headers of the events being appended, so the publisher
 * sends it along and a consumer's span continues the producer's trace. An event that already has a
 * {@code traceparent} header keeps its own.
 *
 * <p>OpenTelemetry is optional: without {@code opentelemetry-api} on the classpath, or without a
 * valid current span, the events are returned unchanged.
 */
public final class TraceContextHeaders {

    /** The W3C header carrying trace id, parent span id and flags. */
    public static final String TRACEPARENT = "traceparent";
    /** The W3C header carrying vendor-specific trace state. */
    public static final String TRACESTATE = "tracestate";

    private static final boolean OPENTELEMETRY = isPresent("io.opentelemetry.context.Context")
            && isPresent("io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator");

    private TraceContextHeaders() {}

    private static boolean isPresent(String className) {
        try {
            Class.forName(className, false, TraceContextHeaders.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /** Whether {@code opentelemetry-api} is on the classpath. */
    public static boolean openTelemetryPresent() {
        return OPENTELEMETRY;
    }

    /**
     * The events with the current trace context added to their headers; the same list when there is
     * no current span (or no OpenTelemetry).
     */
    public static List<OutboxEvent> withCurrentTraceContext(List<OutboxEvent> events) {
        if (!OPENTELEMETRY || events.isEmpty()) {
            return events;
        }
        Map<String, String> context = CurrentTraceContext.w3cHeaders();
        if (!context.containsKey(TRACEPARENT)) {
            return events;
        }
        List<OutboxEvent> traced = new ArrayList<>(events.size());
        for (OutboxEvent event : events) {
            traced.add(event.headers().containsKey(TRACEPARENT) ? event : withHeaders(event, context));
        }
        return traced;
    }

    private static OutboxEvent withHeaders(OutboxEvent event, Map<String, String> context) {
        Map<String, String> headers = new LinkedHashMap<>(event.headers());
        context.forEach((name, value) -> {
            if (name.equals(TRACEPARENT) || name.equals(TRACESTATE)) {
                headers.put(name, value);
            }
        });
        return event.withHeaders(Map.copyOf(headers));
    }
}
