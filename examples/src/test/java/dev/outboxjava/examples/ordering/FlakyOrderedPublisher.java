package dev.outboxjava.examples.ordering;

import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.KeyHoldBack;
import dev.outboxjava.core.port.PublishOutcome;
import dev.outboxjava.core.port.Publisher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

/**
 * Fails a share of publishes the way a real broker client does: an event that fails is not sent,
 * and neither is any later event of its key in the same batch (what the Kafka and RabbitMQ
 * publishers do to keep a key's order, {@link KeyHoldBack}). Everything else goes to the real publisher.
 */
final class FlakyOrderedPublisher implements Publisher {

    private final Publisher delegate;
    private final double failureRate;
    private final Predicate<OutboxEvent> alwaysFails;
    private final Random random;

    FlakyOrderedPublisher(Publisher delegate, double failureRate, Predicate<OutboxEvent> alwaysFails, long seed) {
        this.delegate = delegate;
        this.failureRate = failureRate;
        this.alwaysFails = alwaysFails;
        this.random = new Random(seed);
    }

    @Override
    public CompletableFuture<List<PublishOutcome>> publish(List<OutboxEvent> batch, Duration timeout) {
        List<PublishOutcome> failed = new ArrayList<>();
        List<OutboxEvent> toSend = new ArrayList<>();
        // the rule every publisher applies: a failure holds back the later events of its key
        KeyHoldBack holdBack = KeyHoldBack.of(batch);
        synchronized (random) {
            for (int i = 0; i < batch.size(); i++) {
                OutboxEvent event = batch.get(i);
                Optional<PublishOutcome> heldBack = holdBack.check(i);
                if (heldBack.isPresent()) {
                    failed.add(heldBack.get());
                } else if (alwaysFails.test(event) || random.nextDouble() < failureRate) {
                    holdBack.failed(i, "injected broker failure");
                    failed.add(PublishOutcome.failed(event.id(), "injected broker failure", true));
                } else {
                    toSend.add(event);
                }
            }
        }
        return delegate.publish(toSend, timeout).thenApply(sent -> {
            List<PublishOutcome> all = new ArrayList<>(sent);
            all.addAll(failed);
            return all;
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
}
