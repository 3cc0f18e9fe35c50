package dev.outboxjava.postgres.tracing;

import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import java.util.LinkedHashMap;
import java.util.Map;

/** Touches OpenTelemetry classes; loaded only once {@link TraceContextHeaders} has seen they are present. */
final class CurrentTraceContext {

    private CurrentTraceContext() {}

    static Map<String, String> w3cHeaders() {
        Map<String, String> carrier = new LinkedHashMap<>();
        W3CTraceContextPropagator.getInstance().inject(Context.current(), carrier, Map::put);
        return carrier;
    }
}
