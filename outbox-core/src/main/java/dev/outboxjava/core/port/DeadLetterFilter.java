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
 * @param destination   this destination (exactly, or as {@code match} says)
 * @param type          this event type (exactly, or as {@code match} says)
 * @param key           this key (exactly, or as {@code match} says)
 * @param match         how {@code destination}, {@code type} and {@code key} are matched
 * @param errorContains the last error contains this text (any case), e.g. an error kind such as
 *                      {@code UnknownTopicOrPartition} or {@code NO_ROUTE}
 * @param cause         the last error's cause ({@link ErrorCause#of}) is exactly this: the dead letters
 *                      of one {@link FailureGroup}
 * @param createdFrom   appended at or after this time
 * @param createdBefore appended before this time
 */
public record DeadLetterFilter(
        Set<UUID> ids,
        Optional<String> destination,
        Optional<String> type,
        Optional<String> key,
        TextMatch match,
        Optional<String> errorContains,
        Optional<String> cause,
        Optional<Instant> createdFrom,
        Optional<Instant> createdBefore) {

    /** The fields of a dead letter whose values {@link OperatorStore#deadLetterValues} lists. */
    public enum Field {
        DESTINATION,
        TYPE,
        KEY
    }

    /** How a filter's destination, type and key are compared with an event's. */
    public enum TextMatch {
        /** Equal, character for character. */
        EXACT,
        /** The event's value contains the filter's (same case): a prefix such as {@code order.} matches too. */
        CONTAINS
    }

    public DeadLetterFilter {
        ids = Set.copyOf(ids);
        destination = nonBlank(destination, "destination");
        type = nonBlank(type, "type");
        key = nonBlank(key, "key");
        Objects.requireNonNull(match, "match");
        errorContains = nonBlank(errorContains, "errorContains");
        cause = Objects.requireNonNull(cause, "cause").filter(text -> !text.isEmpty());
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
                TextMatch.EXACT,
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
        return new DeadLetterFilter(
                newIds, destination, type, key, match, errorContains, cause, createdFrom, createdBefore);
    }

    /** This filter with a destination (blank = any). */
    public DeadLetterFilter withDestination(String value) {
        return new DeadLetterFilter(
                ids, Optional.ofNullable(value), type, key, match, errorContains, cause, createdFrom, createdBefore);
    }

    /** This filter with an event type (blank = any). */
    public DeadLetterFilter withType(String value) {
        return new DeadLetterFilter(
                ids,
                destination,
                Optional.ofNullable(value),
                key,
                match,
                errorContains,
                cause,
                createdFrom,
                createdBefore);
    }

    /** This filter with a key (blank = any). */
    public DeadLetterFilter withKey(String value) {
        return new DeadLetterFilter(
                ids,
                destination,
                type,
                Optional.ofNullable(value),
                match,
                errorContains,
                cause,
                createdFrom,
                createdBefore);
    }

    /** This filter with a text the last error contains (blank = any). */
    public DeadLetterFilter withErrorContaining(String value) {
        return new DeadLetterFilter(
                ids, destination, type, key, match, Optional.ofNullable(value), cause, createdFrom, createdBefore);
    }

    /** This filter with a creation-time range (either end may be empty). */
    public DeadLetterFilter withCreated(Optional<Instant> from, Optional<Instant> before) {
        return new DeadLetterFilter(ids, destination, type, key, match, errorContains, cause, from, before);
    }

    /** This filter with a cause ({@link ErrorCause#of}; empty = any). */
    public DeadLetterFilter withCause(String value) {
        return new DeadLetterFilter(
                ids,
                destination,
                type,
                key,
                match,
                errorContains,
                Optional.ofNullable(value),
                createdFrom,
                createdBefore);
    }

    /** This filter, its destination, type and key compared as {@code value} says. */
    public DeadLetterFilter withMatch(TextMatch value) {
        return new DeadLetterFilter(
                ids, destination, type, key, value, errorContains, cause, createdFrom, createdBefore);
    }

    /** Whether {@code event}'s own fields match (its status is not looked at). */
    public boolean matches(dev.outboxjava.core.OutboxEvent event) {
        return (ids.isEmpty() || ids.contains(event.id()))
                && destination.map(d -> matches(d, event.destination())).orElse(true)
                && type.map(t -> matches(t, event.type())).orElse(true)
                && key.map(k -> event.key().map(value -> matches(k, value)).orElse(false))
                        .orElse(true)
                && cause.map(c -> event.lastError()
                                .map(error -> ErrorCause.of(error).equals(c))
                                .orElse(false))
                        .orElse(true)
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

    private boolean matches(String wanted, String value) {
        return match == TextMatch.EXACT ? value.equals(wanted) : value.contains(wanted);
    }

    /** The filter as text for an audit entry, e.g. {@code type=order.placed, error~timeout} ({@code ~}: contains); {@code all} when empty. */
    public String describe() {
        List<String> parts = new ArrayList<>();
        if (!ids.isEmpty()) {
            parts.add(ids.size() == 1 ? "id=" + ids.iterator().next() : ids.size() + " ids");
        }
        String compared = match == TextMatch.EXACT ? "=" : "~";
        destination.ifPresent(v -> parts.add("destination" + compared + v));
        type.ifPresent(v -> parts.add("type" + compared + v));
        key.ifPresent(v -> parts.add("key" + compared + v));
        errorContains.ifPresent(v -> parts.add("error~" + v));
        cause.ifPresent(v -> parts.add("cause=" + v));
        createdFrom.ifPresent(v -> parts.add("created>=" + v));
        createdBefore.ifPresent(v -> parts.add("created<" + v));
        return parts.isEmpty() ? "all" : String.join(", ", parts);
    }
}
