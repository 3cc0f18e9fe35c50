package dev.outboxjava.worker.internal;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.PublishOutcome;
import dev.outboxjava.core.relay.RelayListener;
import dev.outboxjava.core.relay.RelayResult;
import java.time.Instant;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Tells several listeners; one that throws is logged and does not stop the others or the relay. */
public final class CompositeRelayListener implements RelayListener {

    private static final Logger log = LoggerFactory.getLogger(CompositeRelayListener.class);

    private final List<RelayListener> listeners;

    public CompositeRelayListener(List<RelayListener> listeners) {
        this.listeners = List.copyOf(listeners);
    }

    private void each(Consumer<RelayListener> call) {
        for (RelayListener listener : listeners) {
            try {
                call.accept(listener);
            } catch (RuntimeException e) {
                log.warn("relay listener {} threw; ignored", listener.getClass().getName(), e);
            }
        }
    }

    @Override
    public void onPublished(OutboxEvent event, Instant acknowledgedAt) {
        each(listener -> listener.onPublished(event, acknowledgedAt));
    }

    @Override
    public void onFailed(OutboxEvent event, PublishOutcome.Failed failure) {
        each(listener -> listener.onFailed(event, failure));
    }

    @Override
    public void onRetryScheduled(OutboxEvent event, String reason, Instant nextAttemptAt) {
        each(listener -> listener.onRetryScheduled(event, reason, nextAttemptAt));
    }

    @Override
    public void onDeadLettered(OutboxEvent event, String reason, boolean retryable) {
        each(listener -> listener.onDeadLettered(event, reason, retryable));
    }

    @Override
    public void onReleased(OutboxEvent event) {
        each(listener -> listener.onReleased(event));
    }

    @Override
    public void onLeaseLost(OutboxEvent event) {
        each(listener -> listener.onLeaseLost(event));
    }

    @Override
    public void onTick(RelayResult result) {
        each(listener -> listener.onTick(result));
    }
}
