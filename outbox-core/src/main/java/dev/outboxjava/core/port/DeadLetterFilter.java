package dev.outboxjava.core.port;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * Which dead letters an operator looks at or acts on: every criterion given must hold. An empty
 * criterion matches everything; {@link #any()} matches every dead letter.
 *
 * @param ids           only these events (empty = any id)
 * @param destination   exactly this destination
 * @param type          exactly this event type
 * @param key           exactly this key
 * @param errorContains the last error contains this text (any case), e.g. an error kind such as
 *                      {@code UnknownTopicOrPartition} or {@code NO_ROUTE}
 * @param createdFrom   appended at or after this time
 * @param createdBefore appended before this time
 */
public record DeadLetterFilter(
        Set<UUID> ids,
        Optional<String> destination,
        Optional<String> type,
        Optional<String> key,
        Optional<String> errorContains,
        Optional<Instant> createdFrom,
        Optional<Instant> createdBefore) {

    public DeadLetterFilter {
        ids = Set.copyOf(ids);
        destination = nonBlank(destination, "destination");
        type = nonBlank(type, "type");
        key = nonBlank(key, "key");
        errorContains = nonBlank(errorContains, "errorContains");
        Objects.requireNonNull(createdFrom, "createdFrom");
        Objects.requireNonNull(createdBefore, "createdBefore");
    }

    private static Optional<String> nonBlank(Optional<String> value, String name) {
        return Objects.requireNonNull(value, name).filter(text -> !text.isBlank());
    }

    /** Every dead letter. */
    public static DeadLetterFilter any() {
        return new DeadLetterFilter(
                Set.of(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty());
    }

    /** The dead letters with these ids. */
    public static DeadLetterFilter ids(Set<UUID> ids) {
        return any().withIds(ids);
    }

    /** This filter, limited to these ids (empty = any). */
    public DeadLetterFilter withIds(Set<UUID> newIds) {
        return new DeadLetterFilter(newIds, destination, type, key, errorContains, createdFrom, createdBefore);
    }

    /** This filter with a destination (blank = any). */
    public DeadLetterFilter withDestination(String value) {
        return new DeadLetterFilter(
                ids, Optional.ofNullable(value), type, key, errorContains, createdFrom, createdBefore);
    }

    /** This filter with an event type (blank = any). */
    public DeadLetterFilter withType(String value) {
        return new DeadLetterFilter(
                ids, destination, Optional.ofNullable(value), key, errorContains, createdFrom, createdBefore);
    }

    /** This filter with a key (blank = any). */
    public DeadLetterFilter withKey(String value) {
        return new DeadLetterFilter(
                ids, destination, type, Optional.ofNullable(value), errorContains, createdFrom, createdBefore);
    }

    /** This filter with a text the last error contains (blank = any). */
    public DeadLetterFilter withErrorContaining(String value) {
        return new DeadLetterFilter(
                ids, destination, type, key, Optional.ofNullable(value), createdFrom, createdBefore);
    }

    /** This filter with a creation-time range (either end may be empty). */
    public DeadLetterFilter withCreated(Optional<Instant> from, Optional<Instant> before) {
        return new DeadLetterFilter(ids, destination, type, key, errorContains, from, before);
    }

    /** Whether {@code event}'s own fields match (its status is not looked at). */
    public boolean matches(dev.outboxjava.core.OutboxEvent event) {
        return (ids.isEmpty() || ids.contains(event.id()))
                && destination.map(event.destination()::equals).orElse(true)
                && type.map(event.type()::equals).orElse(true)
                && key.map(k -> event.key().map(k::equals).orElse(false)).orElse(true)
                && errorContains
                        .map(text -> event.lastError()
                                .map(error -> error.toLowerCase(java.util.Locale.ROOT)
                                        .contains(text.toLowerCase(java.util.Locale.ROOT)))
                                .orElse(false))
                        .orElse(true)
                && createdFrom.map(from -> !event.createdAt().isBefore(from)).orElse(true)
                && createdBefore
                        .map(before -> event.createdAt().isBefore(before))
                        .orElse(true);
    }

    /** The filter as text for an audit entry, e.g. {@code type=order.placed, error~timeout}; {@code all} when empty. */
    public String describe() {
        List<String> parts = new ArrayList<>();
        if (!ids.isEmpty()) {
            parts.add(ids.size() == 1 ? "id=" + ids.iterator().next() : ids.size() + " ids");
        }
        destination.ifPresent(v -> parts.add("destination=" + v));
        type.ifPresent(v -> parts.add("type=" + v));
        key.ifPresent(v -> parts.add("key=" + v));
        errorContains.ifPresent(v -> parts.add("error~" + v));
        createdFrom.ifPresent(v -> parts.add("created>=" + v));
        createdBefore.ifPresent(v -> parts.add("created<" + v));
        return parts.isEmpty() ? "all" : String.join(", ", parts);
    }
}
