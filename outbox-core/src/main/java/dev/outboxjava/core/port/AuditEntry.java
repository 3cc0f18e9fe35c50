package dev.outboxjava.core.port;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * One operator action as recorded by the store.
 *
 * @param id              increasing entry number
 * @param at              when
 * @param actor           who
 * @param action          what: {@code requeue}, {@code purge}, {@code edit-requeue}, {@code retry-now} or
 *                        {@code dead-letter}
 * @param selection       which events, as text (the filter, or one id)
 * @param affected        how many events changed
 * @param eventId         the edited event (edits only)
 * @param originalPayload the payload before an edit (edits only)
 * @param originalHeaders the headers before an edit (empty otherwise)
 * @param newPayload      the payload an edit stored (edits only)
 * @param newHeaders      the headers an edit stored (empty otherwise)
 * @param eventIds        the events a repair changed or removed, at most {@value #MAX_EVENT_IDS} (a larger
 *                        repair keeps the first ones, in sequence order, and {@code affected} says how many
 *                        there were in all)
 */
public record AuditEntry(
        long id,
        Instant at,
        String actor,
        String action,
        String selection,
        long affected,
        Optional<UUID> eventId,
        Optional<byte[]> originalPayload,
        Map<String, String> originalHeaders,
        Optional<byte[]> newPayload,
        Map<String, String> newHeaders,
        List<UUID> eventIds) {

    /** Action name of a requeue. */
    public static final String REQUEUE = "requeue";
    /** Action name of a purge. */
    public static final String PURGE = "purge";
    /** Action name of an edit followed by a requeue. */
    public static final String EDIT_REQUEUE = "edit-requeue";
    /** Action name of retrying events made due now. */
    public static final String RETRY_NOW = "retry-now";
    /** Action name of retrying events dead-lettered by an operator. */
    public static final String DEAD_LETTER = "dead-letter";
    /** The most event ids one entry keeps. */
    public static final int MAX_EVENT_IDS = 10_000;

    public AuditEntry {
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(actor, "actor");
        Objects.requireNonNull(action, "action");
        Objects.requireNonNull(selection, "selection");
        Objects.requireNonNull(eventId, "eventId");
        originalPayload = originalPayload.map(byte[]::clone);
        originalHeaders = Map.copyOf(originalHeaders);
        newPayload = newPayload.map(byte[]::clone);
        newHeaders = Map.copyOf(newHeaders);
        eventIds = List.copyOf(eventIds);
    }

    @Override
    public Optional<byte[]> originalPayload() {
        return originalPayload.map(byte[]::clone);
    }

    @Override
    public Optional<byte[]> newPayload() {
        return newPayload.map(byte[]::clone);
    }
}
