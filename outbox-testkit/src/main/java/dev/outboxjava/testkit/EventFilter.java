package dev.outboxjava.testkit;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.testkit.contract.ReceivedMessage;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Which events an assertion looks for: by type, key, header and payload, all optional. Immutable;
 * each {@code with…} returns a narrower filter. Works on an {@link OutboxEvent} (what a
 * {@link RecordingPublisher} or a store holds) and on a {@link ReceivedMessage} (what a consumer read
 * from a broker), and describes itself for failure messages.
 *
 * <pre>{@code
 * EventFilter placed = EventFilter.ofType("order.placed").withKey("order-7").withPayloadContaining("\"total\":12.5");
 * }</pre>
 */
public final class EventFilter implements Predicate<OutboxEvent> {

    private record Criterion(
            String description, Predicate<OutboxEvent> onEvent, Predicate<ReceivedMessage> onMessage) {}

    private static final EventFilter ANY = new EventFilter(List.of());

    private final List<Criterion> criteria;

    private EventFilter(List<Criterion> criteria) {
        this.criteria = List.copyOf(criteria);
    }

    /** Matches every event. */
    public static EventFilter anyEvent() {
        return ANY;
    }

    /** Matches events of {@code type}. */
    public static EventFilter ofType(String type) {
        return ANY.withType(type);
    }

    /** Matches events with key {@code key}. */
    public static EventFilter ofKey(String key) {
        return ANY.withKey(key);
    }

    /** This filter, further requiring the type {@code type}. */
    public EventFilter withType(String type) {
        Objects.requireNonNull(type, "type");
        return and(new Criterion(
                "type=" + type, event -> event.type().equals(type), message -> type.equals(message.type())));
    }

    /** This filter, further requiring the key {@code key}. */
    public EventFilter withKey(String key) {
        Objects.requireNonNull(key, "key");
        return and(
                new Criterion("key=" + key, event -> hasKey(event.key(), key), message -> hasKey(message.key(), key)));
    }

    /** This filter, further requiring the header {@code name} with value {@code value}. */
    public EventFilter withHeader(String name, String value) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(value, "value");
        return and(new Criterion(
                "header " + name + "=" + value,
                event -> value.equals(event.headers().get(name)),
                message -> value.equals(message.headers().get(name))));
    }

    /** This filter, further requiring a payload that contains {@code text} (payload read as UTF-8). */
    public EventFilter withPayloadContaining(String text) {
        Objects.requireNonNull(text, "text");
        return withPayload(
                payload -> new String(payload, StandardCharsets.UTF_8).contains(text), "payload containing " + text);
    }

    /**
     * This filter, further requiring a payload that satisfies {@code test}.
     *
     * @param description what the test checks, for failure messages (e.g. {@code "total over 100"})
     */
    public EventFilter withPayload(Predicate<byte[]> test, String description) {
        Objects.requireNonNull(test, "test");
        Objects.requireNonNull(description, "description");
        return and(new Criterion(
                description, event -> test.test(event.payload()), message -> test.test(message.payload())));
    }

    /** Whether {@code event} matches every criterion. */
    @Override
    public boolean test(OutboxEvent event) {
        return criteria.stream().allMatch(criterion -> criterion.onEvent().test(event));
    }

    /** Whether {@code message}, as read from a broker, matches every criterion. */
    public boolean matches(ReceivedMessage message) {
        return criteria.stream().allMatch(criterion -> criterion.onMessage().test(message));
    }

    /** What this filter looks for, e.g. {@code "an event with type=order.placed, key=order-7"}. */
    public String describe() {
        if (criteria.isEmpty()) {
            return "any event";
        }
        return "an event with "
                + String.join(
                        ", ", criteria.stream().map(Criterion::description).toList());
    }

    @Override
    public String toString() {
        return describe();
    }

    private EventFilter and(Criterion criterion) {
        List<Criterion> more = new ArrayList<>(criteria);
        more.add(criterion);
        return new EventFilter(more);
    }

    private static boolean hasKey(Optional<String> actual, String expected) {
        return actual.filter(expected::equals).isPresent();
    }
}
