package dev.outboxjava.spring.boot;

import dev.outboxjava.core.InvalidConfigurationException;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.OutboxException;
import dev.outboxjava.core.PayloadSerializer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.Expression;
import org.springframework.expression.ExpressionException;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.SimpleEvaluationContext;
import org.springframework.util.ClassUtils;

/**
 * Finds the route of an application event's type: an {@link EventRoute} bean, then
 * {@code outbox.routes[<class>]}, then {@link OutboxRoute} on the type or a supertype; and turns the event
 * into an {@link OutboxEvent}. Looks each type up once.
 */
final class OutboxEventRouter {

    private static final SpelExpressionParser SPEL = new SpelExpressionParser();
    /** Reads properties and calls methods of the event; nothing else (no types, no beans, no assignment). */
    private static final EvaluationContext KEY_CONTEXT = SimpleEvaluationContext.forReadOnlyDataBinding()
            .withInstanceMethods()
            .build();

    /** A route in the one shape all three declarations come to. */
    private record Route(
            String destination,
            Function<Object, Optional<String>> key,
            String type,
            String source,
            String routingKey,
            String declaredBy) {}

    private final List<Map.Entry<Class<?>, Route>> declared = new ArrayList<>();
    private final Map<Class<?>, Optional<Route>> byType = new ConcurrentHashMap<>();
    private final String defaultSource;

    /**
     * @param beans         the application's {@link EventRoute} beans
     * @param configured    {@code outbox.routes}, by event class name
     * @param defaultSource the source of routes that set none
     */
    OutboxEventRouter(
            List<EventRoute<?>> beans,
            Map<String, OutboxProperties.Route> configured,
            ClassLoader classLoader,
            String defaultSource) {
        this.defaultSource = defaultSource;
        for (EventRoute<?> route : beans) {
            declared.add(Map.entry(route.eventType(), fromBean(route)));
        }
        configured.forEach((className, route) -> {
            String property = "outbox.routes[" + className + "]";
            Class<?> type;
            try {
                type = ClassUtils.forName(className, classLoader);
            } catch (ClassNotFoundException | LinkageError e) {
                throw new InvalidConfigurationException(
                        property,
                        "no class " + className + " on the classpath: the key is the event's fully "
                                + "qualified class name, e.g. outbox.routes[com.example.OrderPlaced].destination=orders");
            }
            if (route.getDestination() == null || route.getDestination().isBlank()) {
                throw new InvalidConfigurationException(
                        property + ".destination", "is required: the Kafka topic or RabbitMQ exchange of " + className);
            }
            declared.add(Map.entry(
                    type,
                    new Route(
                            route.getDestination(),
                            keyExpression(property + ".key", route.getKey()),
                            blankToNull(route.getType()) != null ? route.getType() : type.getName(),
                            blankToNull(route.getSource()) != null ? route.getSource() : defaultSource,
                            route.getRoutingKey() == null ? "" : route.getRoutingKey(),
                            property)));
        });
    }

    /** Whether events of this type go to the outbox. */
    boolean routes(Class<?> eventType) {
        return route(eventType).isPresent();
    }

    /**
     * The event as a new outbox event, its payload serialized by {@code serializer}.
     *
     * @throws OutboxException when the event's type has no route, naming the three ways to declare one
     */
    OutboxEvent toOutboxEvent(Object event, PayloadSerializer serializer) {
        Class<?> eventType = event.getClass();
        Route route = route(eventType)
                .orElseThrow(() -> new OutboxException("no outbox route for " + eventType.getName()
                        + ": annotate the type with @OutboxRoute(destination = \"<topic or exchange>\"), set "
                        + "outbox.routes[" + eventType.getName() + "].destination, or define an EventRoute bean "
                        + "for it; or build the OutboxEvent yourself with SpringOutbox.event(payload)"));
        OutboxEvent.Builder builder = OutboxEvent.builder()
                .type(route.type())
                .source(route.source())
                .destination(route.destination())
                .routingKey(route.routingKey())
                .payload(event, serializer);
        route.key().apply(event).ifPresent(builder::key);
        return builder.build();
    }

    private Optional<Route> route(Class<?> eventType) {
        return byType.computeIfAbsent(eventType, this::find);
    }

    private Optional<Route> find(Class<?> eventType) {
        for (Map.Entry<Class<?>, Route> entry : declared) {
            if (entry.getKey() == eventType) {
                return Optional.of(entry.getValue());
            }
        }
        for (Map.Entry<Class<?>, Route> entry : declared) {
            if (entry.getKey().isAssignableFrom(eventType)) {
                return Optional.of(entry.getValue());
            }
        }
        MergedAnnotation<OutboxRoute> annotation = MergedAnnotations.from(
                        eventType, MergedAnnotations.SearchStrategy.TYPE_HIERARCHY)
                .get(OutboxRoute.class);
        if (!annotation.isPresent()) {
            return Optional.empty();
        }
        String where = "@OutboxRoute of " + eventType.getName();
        String destination = annotation.getString("destination");
        if (destination.isBlank()) {
            throw new InvalidConfigurationException(where + ".destination", "must not be blank");
        }
        String type = annotation.getString("type");
        String source = annotation.getString("source");
        return Optional.of(new Route(
                destination,
                keyExpression(where + ".key", annotation.getString("key")),
                type.isBlank() ? eventType.getName() : type,
                source.isBlank() ? defaultSource : source,
                annotation.getString("routingKey"),
                where));
    }

    @SuppressWarnings("unchecked")
    private Route fromBean(EventRoute<?> route) {
        EventRoute<Object> any = (EventRoute<Object>) route;
        return new Route(
                route.destination(),
                any::keyOf,
                route.type(),
                route.source().orElse(defaultSource),
                route.routingKey(),
                route.toString());
    }

    /** A SpEL expression on the event, parsed at once so that a typo stops the application at start. */
    private static Function<Object, Optional<String>> keyExpression(String setting, String expression) {
        if (blankToNull(expression) == null) {
            return event -> Optional.empty();
        }
        Expression parsed;
        try {
            parsed = SPEL.parseExpression(expression);
        } catch (ExpressionException e) {
            throw new InvalidConfigurationException(
                    setting, "'" + expression + "' is not a Spring expression: " + e.getMessage());
        }
        return event -> {
            Object value;
            try {
                value = parsed.getValue(KEY_CONTEXT, event);
            } catch (ExpressionException e) {
                throw new OutboxException(
                        "the key of the outbox event for a " + event.getClass().getName() + " could not be read: "
                                + setting + " = '" + expression + "' failed on it: " + e.getMessage()
                                + " (name a property or method of the event, e.g. orderId or customer.id)",
                        e);
            }
            return value == null ? Optional.empty() : Optional.of(value.toString());
        };
    }

    private static String blankToNull(String value) {
        return value == null || value.isBlank() ? null : value;
    }
}
