package dev.outboxjava.postgres;

/**
 * How the store keeps its events on PostgreSQL.
 *
 * <p>{@link #IN_PLACE}, the default, keeps every event in one table and changes its row as it moves
 * (pending, in flight, sent or dead-lettered). {@link #APPEND_LOG} is experimental: it never changes
 * an appended row, reads new events by position and keeps state only for the events that need it,
 * so that a transaction holding back vacuum does not slow the lease down (see
 * {@code docs/design/long-transactions.md}).
 */
public enum StoreLayout {

    /** One table; each event's row is updated in place as its status changes. The default. */
    IN_PLACE,

    /**
     * Experimental: an append-only event table read by position in commit-safe order, a small table of
     * in-flight, retrying and dead-lettered events beside it, and an append-only record of sent events.
     */
    APPEND_LOG
}
