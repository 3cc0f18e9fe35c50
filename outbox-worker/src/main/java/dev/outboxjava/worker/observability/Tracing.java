package dev.outboxjava.worker.observability;

import dev.outboxjava.core.port.Publisher;

/**
 * OpenTelemetry for the relay, when {@code opentelemetry-api} is on the classpath: each batch's
 * publish runs in a PRODUCER span linked to the trace of every event that carries a W3C
 * {@code traceparent} header (the writer stores it when an event is appended inside a span). Spans go
 * to {@code GlobalOpenTelemetry}, so nothing is recorded until the application installs an SDK.
 * Without the API on the classpath the publisher is used as it is.
 */
public final class Tracing {

    private static final boolean OPENTELEMETRY = isPresent("io.opentelemetry.api.GlobalOpenTelemetry");

    private Tracing() {}

    private static boolean isPresent(String className) {
        try {
            Class.forName(className, false, Tracing.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /** Whether {@code opentelemetry-api} is on the classpath. */
    public static boolean available() {
        return OPENTELEMETRY;
    }

    /** The publisher wrapped in a tracing one when OpenTelemetry is available; else {@code publisher} itself. */
    public static Publisher traced(Publisher publisher) {
        return OPENTELEMETRY ? TracingPublisher.usingGlobal(publisher) : publisher;
    }
}
