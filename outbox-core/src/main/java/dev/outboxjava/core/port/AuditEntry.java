package dev.outboxjava.core.port;

import java.time.Instant;
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
 * @param action          what: {@code requeue}, {@code purge} or {@code edit-requeue}
 * @param selection       which events, as text (the filter, or one id)
 * @param affected        how many events changed
 * @param eventId         the edited event (edits only)
 * @param originalPayload the payload before an edit (edits only)
 * @param originalHeaders the headers before an edit (empty otherwise)
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
        Map<String, String> originalHeaders) {

    /** Action name of a requeue. */
    public static final String REQUEUE = "requeue";
    /** Action name of a purge. */
    public static final String PURGE = "purge";
    /** Action name of an edit followed by a requeue. */
    public static final String EDIT_REQUEUE = "edit-requeue";

    public AuditEntry {
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(actor, "actor");
        Objects.requireNonNull(action, "action");
        Objects.requireNonNull(selection, "selection");
        Objects.requireNonNull(eventId, "eventId");
        originalPayload = originalPayload.map(byte[]::clone);
        originalHeaders = Map.copyOf(originalHeaders);
    }

    @Override
    public Optional<byte[]> originalPayload() {
        return originalPayload.map(byte[]::clone);
    }
}
