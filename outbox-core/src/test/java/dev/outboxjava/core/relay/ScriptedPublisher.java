package dev.outboxjava.core.relay;

import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.PublishOutcome;
import dev.outboxjava.core.port.Publisher;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A publisher that answers from a script: per event, a queue of responses for its next attempts
 * (then a standing response), and "published" for everything unscripted. Records every batch.
 */
final class ScriptedPublisher implements Publisher {

    /** One scripted answer for one event: an outcome, or none at all (the publisher forgot it). */
    static final class Response {
        private final Function<UUID, Optional<PublishOutcome>> outcome;

        private Response(Function<UUID, Optional<PublishOutcome>> outcome) {
            this.outcome = outcome;
        }

        static Response published() {
            return new Response(id -> Optional.of(PublishOutcome.published(id)));
        }

        static Response retryable(String reason) {
            return new Response(id -> Optional.of(PublishOutcome.failed(id, reason, true)));
        }

        static Response notRetryable(String reason) {
            return new Response(id -> Optional.of(PublishOutcome.failed(id, reason, false)));
        }

        static Response unroutable(String reason) {
            return new Response(id -> Optional.of(PublishOutcome.unroutable(id, reason)));
        }

        static Response heldBack(String reason) {
            return new Response(id -> Optional.of(PublishOutcome.heldBack(id, reason)));
        }

        static Response omitted() {
            return new Response(id -> Optional.empty());
        }
    }

    private final Map<UUID, Deque<Response>> next = new HashMap<>();
    private final Map<UUID, Response> always = new HashMap<>();
    private final List<List<OutboxEvent>> batches = new ArrayList<>();
    private final List<Duration> timeouts = new ArrayList<>();
    private Consumer<List<OutboxEvent>> duringPublish = batch -> {};

    /** The next attempts of {@code eventId} get these responses, in order. */
    synchronized ScriptedPublisher thenRespond(UUID eventId, Response... responses) {
        next.computeIfAbsent(eventId, id -> new ArrayDeque<>()).addAll(List.of(responses));
        return this;
    }

    /** Every attempt of {@code eventId} without a queued response gets this one. */
    synchronized ScriptedPublisher alwaysRespond(UUID eventId, Response response) {
        always.put(eventId, response);
        return this;
    }

    /** Runs while a batch is "at the broker", before the outcomes are returned. */
    synchronized ScriptedPublisher duringPublish(Consumer<List<OutboxEvent>> action) {
        this.duringPublish = action;
        return this;
    }

    @Override
    public synchronized CompletableFuture<List<PublishOutcome>> publish(List<OutboxEvent> batch, Duration timeout) {
        batches.add(List.copyOf(batch));
        timeouts.add(timeout);
        duringPublish.accept(batch);
        List<PublishOutcome> outcomes = new ArrayList<>();
        for (OutboxEvent event : batch) {
            Deque<Response> queued = next.get(event.id());
            Response response = queued != null && !queued.isEmpty()
                    ? queued.poll()
                    : always.getOrDefault(event.id(), Response.published());
            response.outcome.apply(event.id()).ifPresent(outcomes::add);
        }
        return CompletableFuture.completedFuture(outcomes);
    }

    synchronized List<List<OutboxEvent>> batches() {
        return List.copyOf(batches);
    }

    synchronized List<Duration> timeouts() {
        return List.copyOf(timeouts);
    }

    synchronized int publishCalls() {
        return batches.size();
    }

    @Override
    public HealthCheck checkHealth() {
        return HealthCheck.up("scripted");
    }

    @Override
    public void close() {}
}
