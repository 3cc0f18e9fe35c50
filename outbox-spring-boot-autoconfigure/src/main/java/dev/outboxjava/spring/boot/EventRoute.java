package dev.outboxjava.spring.boot;

import dev.outboxjava.core.InvalidConfigurationException;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * Where the outbox sends the application's events of one type, declared in code: define it as a bean
 * and events of that type published with {@code ApplicationEventPublisher.publishEvent(...)}, or passed
 * to {@link SpringOutbox#append(Object)}, are appended in the current transaction.
 *
 * <pre>{@code
 * @Bean
 * EventRoute<OrderPlaced> orderPlacedRoute() {
 *     return EventRoute.of(OrderPlaced.class).destination("orders").key(OrderPlaced::orderId).build();
 * }
 * }</pre>
 *
 * <p>The same as {@link OutboxRoute} on the type or {@code outbox.routes[<class name>].*} in the
 * configuration; a bean wins over both. A route applies to its type and to its subtypes.
 *
 * @param <T> the event type
 */
public final class EventRoute<T> {

    private final Class<T> eventType;
    private final String destination;
    private final Function<? super T, ?> key;
    private final String type;
    private final Optional<String> source;
    private final String routingKey;

    private EventRoute(Builder<T> builder) {
        this.eventType = builder.eventType;
        this.destination = builder.destination;
        this.key = builder.key;
        this.type = builder.type != null ? builder.type : builder.eventType.getName();
        this.source = Optional.ofNullable(builder.source);
        this.routingKey = builder.routingKey;
    }

    /** A route for events of {@code eventType} (and its subtypes). */
    public static <T> Builder<T> of(Class<T> eventType) {
        return new Builder<>(Objects.requireNonNull(eventType, "eventType"));
    }

    /** The events this route sends. */
    public Class<T> eventType() {
        return eventType;
    }

    /** The Kafka topic or RabbitMQ exchange. */
    public String destination() {
        return destination;
    }

    /** The CloudEvents type. */
    public String type() {
        return type;
    }

    /** The CloudEvents source, when the route sets one. */
    public Optional<String> source() {
        return source;
    }

    /** The RabbitMQ routing key; empty for none. */
    public String routingKey() {
        return routingKey;
    }

    /** The key of one event, when the route has a key. */
    public Optional<String> keyOf(T event) {
        if (key == null) {
            return Optional.empty();
        }
        Object value = key.apply(event);
        return value == null ? Optional.empty() : Optional.of(value.toString());
    }

    @Override
    public String toString() {
        return "EventRoute[" + eventType.getName() + " -> " + destination + "]";
    }

    /** Builds an {@link EventRoute}; {@link #destination} is required. */
    public static final class Builder<T> {
        private final Class<T> eventType;
        private String destination;
        private Function<? super T, ?> key;
        private String type;
        private String source;
        private String routingKey = "";

        private Builder(Class<T> eventType) {
            this.eventType = eventType;
        }

        /** The Kafka topic or RabbitMQ exchange. Required. */
        public Builder<T> destination(String value) {
            this.destination = value;
            return this;
        }

        /**
         * The event's key, e.g. {@code OrderPlaced::orderId}: its value's {@code toString()}, or none when
         * it returns null. Default: none (an unordered event).
         */
        public Builder<T> key(Function<? super T, ?> value) {
            this.key = Objects.requireNonNull(value, "key");
            return this;
        }

        /** The CloudEvents type. Default: the event class's fully qualified name. */
        public Builder<T> type(String value) {
            this.type = value;
            return this;
        }

        /** The CloudEvents source. Default: {@code /} and {@code spring.application.name}. */
        public Builder<T> source(String value) {
            this.source = value;
            return this;
        }

        /** The RabbitMQ routing key. Default: none. */
        public Builder<T> routingKey(String value) {
            this.routingKey = Objects.requireNonNull(value, "routingKey");
            return this;
        }

        /** The route; throws {@link InvalidConfigurationException} without a destination. */
        public EventRoute<T> build() {
            if (destination == null || destination.isBlank()) {
                throw new InvalidConfigurationException(
                        "EventRoute.destination",
                        "the outbox route of " + eventType.getName() + " needs a destination: EventRoute.of("
                                + eventType.getSimpleName() + ".class).destination(\"<topic or exchange>\")");
            }
            return new EventRoute<>(this);
        }
    }
}
