package dev.outboxjava.postgres.internal;

/**
 * Lets one transaction commit without waiting for the WAL flush: for the writes a database crash may
 * undo at no cost but a repeat — a lease (its events are published again) and a wake-up hint.
 */
public final class AsyncCommit {

    /**
     * A value expression switching the current transaction, and only it, to
     * {@code synchronous_commit = off}: put in a statement's select list or FROM item, it costs no
     * extra round trip, and the setting never stays on a pooled connection (a producer's commit there
     * stays durable).
     */
    public static final String FOR_THIS_TRANSACTION = "set_config('synchronous_commit', 'off', true)";

    private AsyncCommit() {
    }
}
