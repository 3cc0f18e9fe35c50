package dev.outboxjava.worker.observability;

import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.PublishOutcome;
import dev.outboxjava.core.port.Publisher;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Runs each batch's publish in a span ({@code outbox publish}, kind PRODUCER, no parent) linked to the
 * span context in each event's {@code traceparent} header. The messages keep the producer's
 * {@code traceparent}, so consumers continue the producer's trace; the relay's span joins it by link.
 * Only touched when {@code opentelemetry-api} is present (see {@link Tracing}).
 */
public final class TracingPublisher implements Publisher {

    static final String INSTRUMENTATION = "dev.outboxjava.worker";
    private static final AttributeKey<Long> BATCH_SIZE = AttributeKey.longKey("messaging.batch.message_count");
    private static final AttributeKey<String> DESTINATION = AttributeKey.stringKey("messaging.destination.name");
    private static final AttributeKey<String> MESSAGE_ID = AttributeKey.stringKey("messaging.message.id");
    private static final AttributeKey<Long> FAILED = AttributeKey.longKey("outbox.publish.failed");

    private static final TextMapGetter<Map<String, String>> HEADERS = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Map<String, String> carrier) {
            return carrier.keySet();
        }

        @Override
        public String get(Map<String, String> carrier, String key) {
            return carrier == null ? null : carrier.get(key);
        }
    };

    private final Publisher delegate;
    private final Supplier<OpenTelemetry> openTelemetry;

    /** Spans go to {@code openTelemetry}. */
    public TracingPublisher(Publisher delegate, OpenTelemetry openTelemetry) {
        this(delegate, () -> openTelemetry);
        Objects.requireNonNull(openTelemetry, "openTelemetry");
    }

    private TracingPublisher(Publisher delegate, Supplier<OpenTelemetry> openTelemetry) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.openTelemetry = openTelemetry;
    }

    /** Spans go to whatever {@link GlobalOpenTelemetry} is when a batch is published. */
    static TracingPublisher usingGlobal(Publisher delegate) {
        return new TracingPublisher(delegate, GlobalOpenTelemetry::get);
    }

    /** The span context an event's {@code traceparent} header names; invalid when it has none. */
    static SpanContext producerContext(OutboxEvent event) {
        Context extracted = W3CTraceContextPropagator.getInstance().extract(Context.root(), event.headers(), HEADERS);
        return Span.fromContext(extracted).getSpanContext();
    }

    @Override
    public CompletableFuture<List<PublishOutcome>> publish(List<OutboxEvent> batch, Duration timeout) {
        Span span;
        try {
            span = startSpan(batch);
        } catch (RuntimeException e) {
            return delegate.publish(batch, timeout); // tracing must never stop publishing
        }
        CompletableFuture<List<PublishOutcome>> outcome;
        try (Scope ignored = span.makeCurrent()) {
            outcome = delegate.publish(batch, timeout);
        } catch (RuntimeException e) {
            span.recordException(e);
            span.setStatus(StatusCode.ERROR, "publisher threw");
            span.end();
            throw e;
        }
        return outcome.whenComplete((outcomes, failure) -> {
            if (failure != null) {
                span.recordException(failure);
                span.setStatus(StatusCode.ERROR, "publish failed");
            } else {
                long failed = outcomes.stream()
                        .filter(o -> o instanceof PublishOutcome.Failed)
                        .count();
                span.setAttribute(FAILED, failed);
                if (failed > 0) {
                    span.setStatus(StatusCode.ERROR, failed + " of " + batch.size() + " event(s) failed");
                }
            }
            span.end();
        });
    }

    private Span startSpan(List<OutboxEvent> batch) {
        List<String> destinations =
                batch.stream().map(OutboxEvent::destination).distinct().toList();
        SpanBuilder builder = openTelemetry
                .get()
                .getTracer(INSTRUMENTATION)
                .spanBuilder("outbox publish" + (destinations.size() == 1 ? " " + destinations.get(0) : ""))
                .setSpanKind(SpanKind.PRODUCER)
                .setNoParent()
                .setAttribute(BATCH_SIZE, (long) batch.size());
        if (destinations.size() == 1) {
            builder.setAttribute(DESTINATION, destinations.get(0));
        }
        if (batch.size() == 1) {
            builder.setAttribute(MESSAGE_ID, batch.get(0).id().toString());
        }
        for (OutboxEvent event : batch) {
            SpanContext producer = producerContext(event);
            if (producer.isValid()) {
                builder.addLink(
                        producer,
                        io.opentelemetry.api.common.Attributes.of(
                                MESSAGE_ID, event.id().toString()));
            }
        }
        return builder.startSpan();
    }

    @Override
    public HealthCheck checkHealth() {
        return delegate.checkHealth();
    }

    @Override
    public void close() {
        delegate.close();
    }

    @Override
    public void close(Duration timeout) {
        delegate.close(timeout);
    }
}
