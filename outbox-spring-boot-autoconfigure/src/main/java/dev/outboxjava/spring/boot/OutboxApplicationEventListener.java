package dev.outboxjava.spring.boot;

import java.util.function.Supplier;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.PayloadApplicationEvent;
import org.springframework.context.event.GenericApplicationListener;
import org.springframework.core.ResolvableType;

/**
 * Appends the application's events that have a route ({@link OutboxRoute}, {@link EventRoute},
 * {@code outbox.routes}) to the outbox when they are published with
 * {@code ApplicationEventPublisher.publishEvent(...)}: in the publishing thread, so in its transaction.
 * Other events it leaves alone; Spring's listeners get every event as before.
 */
final class OutboxApplicationEventListener implements GenericApplicationListener {

    private final Supplier<OutboxEventRouter> router;
    private final Supplier<SpringOutbox> outbox;

    /** Suppliers: the listener is created early in the context's refresh, the outbox only when first needed. */
    OutboxApplicationEventListener(Supplier<OutboxEventRouter> router, Supplier<SpringOutbox> outbox) {
        this.router = router;
        this.outbox = outbox;
    }

    /** Decided per type and cached by Spring's multicaster: unrouted events cost nothing after the first. */
    @Override
    public boolean supportsEventType(ResolvableType eventType) {
        Class<?> type;
        if (PayloadApplicationEvent.class.isAssignableFrom(eventType.toClass())) {
            type = eventType.as(PayloadApplicationEvent.class).getGeneric().resolve();
            if (type == null) {
                return true; // decided per event in onApplicationEvent
            }
        } else {
            type = eventType.toClass();
        }
        return router.get().routes(type);
    }

    @Override
    public void onApplicationEvent(ApplicationEvent event) {
        Object payload = event instanceof PayloadApplicationEvent<?> wrapped ? wrapped.getPayload() : event;
        if (router.get().routes(payload.getClass())) {
            outbox.get().append(payload);
        }
    }

    /** First, so that a failed append (no transaction) stops the publication before other listeners run. */
    @Override
    public int getOrder() {
        return HIGHEST_PRECEDENCE;
    }
}
