package dev.outboxjava.worker.observability;

import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.OutboxException;
import dev.outboxjava.core.port.PublishOutcome;
import dev.outboxjava.core.port.Publisher;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.ReceiverContext;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * Runs each event's publish in a Micrometer {@link Observation} named {@value #NAME}, from the moment the
 * relay hands the batch to the broker until the broker's answer for that event. Its parent is the trace
 * context the event was appended in (its W3C {@code traceparent} header, read as a transport carrier), so
 * with Micrometer Tracing each event gets a span in the appending trace, and a failed publish is an error
 * on it. Low-cardinality keys: {@code messaging.destination.name} and {@code outbox.event.type};
 * high-cardinality: {@code messaging.message.id}. With a no-op registry it adds nothing.
 */
public final class ObservedPublisher implements Publisher {

    /** The observation's name (a span {@code outbox publish}, a timer {@code outbox.publish}). */
    public static final String NAME = "outbox.publish";

    private final Publisher delegate;
    private final ObservationRegistry registry;

    public ObservedPublisher(Publisher delegate, ObservationRegistry registry) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.registry = Objects.requireNonNull(registry, "registry");
    }

    /** The publisher observed by {@code registry}, or the publisher itself when the registry is a no-op one. */
    public static Publisher observe(Publisher publisher, ObservationRegistry registry) {
        return registry.isNoop() ? publisher : new ObservedPublisher(publisher, registry);
    }

    @Override
    public CompletableFuture<List<PublishOutcome>> publish(List<OutboxEvent> batch, Duration timeout) {
        Map<UUID, Observation> observations = new HashMap<>();
        for (OutboxEvent event : batch) {
            ReceiverContext<Map<String, String>> context = new ReceiverContext<>(Map::get);
            context.setCarrier(event.headers());
            Observation observation = Observation.createNotStarted(NAME, () -> context, registry)
                    .contextualName("outbox publish " + event.destination())
                    .lowCardinalityKeyValue("messaging.destination.name", event.destination())
                    .lowCardinalityKeyValue("outbox.event.type", event.type())
                    .highCardinalityKeyValue("messaging.message.id", event.id().toString())
                    .start();
            observations.put(event.id(), observation);
        }
        CompletableFuture<List<PublishOutcome>> published;
        try {
            published = delegate.publish(batch, timeout);
        } catch (RuntimeException e) {
            observations.values().forEach(observation -> {
                observation.error(e);
                observation.stop();
            });
            throw e;
        }
        return published.whenComplete((outcomes, failure) -> {
            if (failure != null) {
                observations.values().forEach(observation -> observation.error(failure));
            } else {
                for (PublishOutcome outcome : outcomes) {
                    if (outcome instanceof PublishOutcome.Failed failed) {
                        Observation observation = observations.get(failed.eventId());
                        if (observation != null) {
                            observation.error(new OutboxException(failed.reason()));
                        }
                    }
                }
            }
            observations.values().forEach(Observation::stop);
        });
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
