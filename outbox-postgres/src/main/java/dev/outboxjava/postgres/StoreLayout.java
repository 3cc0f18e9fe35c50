package dev.outboxjava.postgres;

/**
 * How the store keeps its events on PostgreSQL.
 *
 * <p>{@link #APPEND_LOG}, the default, never changes an appended row: it reads new events by position,
 * keeps state only for the events that need it (retries, dead letters, those in flight) and removes
 * published events by dropping whole partitions, so that a transaction holding back vacuum does not slow
 * the lease down, and keeping sent events it drains a backlog faster (see
 * {@code docs/design/long-transactions.md}).
 * {@link #IN_PLACE} keeps every event in one table and changes its row as it moves (pending, in flight,
 * sent or dead-lettered). A table is in one layout; {@link PostgresSchema#convertToAppendLog} moves an
 * in-place table to the append-only layout.
 */
public enum StoreLayout {

    /** One table; each event's row is updated in place as its status changes. */
    IN_PLACE,

    /**
     * The default: an append-only event table read by position in commit-safe order, partitioned by
     * sequence ranges, a small table of in-flight, retrying and dead-lettered events beside it, and an
     * append-only record of sent events.
     */
    APPEND_LOG
}
