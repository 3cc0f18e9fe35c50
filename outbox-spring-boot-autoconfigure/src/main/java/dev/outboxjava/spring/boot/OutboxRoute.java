package dev.outboxjava.spring.boot;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks an application event type for the outbox: an instance published with
 * {@code ApplicationEventPublisher.publishEvent(...)} inside a transaction, or passed to
 * {@link SpringOutbox#append(Object)}, is appended in that transaction, serialized by the application's
 * {@link dev.outboxjava.core.PayloadSerializer} (JSON by its {@code JsonMapper} unless it defines one).
 *
 * <pre>{@code
 * @OutboxRoute(destination = "orders", key = "orderId")
 * public record OrderPlaced(UUID orderId, String sku, int quantity) {}
 * }</pre>
 *
 * <p>A route for the same type declared as an {@link EventRoute} bean or under {@code outbox.routes} wins
 * over the annotation. Published outside a transaction, the event fails as {@link SpringOutbox#append}
 * does; unmarked events go to Spring's listeners as before (and marked ones do too).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
public @interface OutboxRoute {

    /** The Kafka topic or RabbitMQ exchange. Required. */
    String destination();

    /**
     * The event's key (the partition key, and what per-key ordering orders by): a Spring Expression
     * Language expression evaluated on the event, such as {@code orderId}, {@code customer.id} or
     * {@code orderId().toString()}; its value's {@code toString()} is the key. Default: none (an unordered
     * event).
     */
    String key() default "";

    /** The CloudEvents type. Default: the event class's fully qualified name. */
    String type() default "";

    /**
     * The CloudEvents source. Default: {@code /} followed by {@code spring.application.name}, or
     * {@value dev.outboxjava.core.OutboxEvent#DEFAULT_SOURCE} without one.
     */
    String source() default "";

    /** The RabbitMQ routing key (ignored by Kafka). Default: none. */
    String routingKey() default "";
}
