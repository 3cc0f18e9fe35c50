package dev.outboxjava.core.port;

/** What a store does with an event once its publish is acknowledged. */
public enum CompletionMode {
    /** Keep it as {@code SENT} for the retention window (audit, replay); the cleaner deletes it later. The default. */
    KEEP_SENT,
    /** Delete it at once: about half the database writes, no cleaner work, a table that stays small. */
    DELETE_ON_PUBLISH
}
