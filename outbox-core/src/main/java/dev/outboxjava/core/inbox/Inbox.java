package dev.outboxjava.core.inbox;

import java.time.Instant;

/**
 * The consumer side of effectively-once processing: runs a message's work and records the
 * message id IN THE SAME TRANSACTION, and skips the work when this consumer already processed that
 * id.
 *
 * <p>The outbox delivers at least once: a relay that dies between the broker's acknowledgement and
 * its mark publishes the event again with the same id, and brokers redeliver what was not
 * acknowledged. Running every handler through an inbox turns those duplicates into no-ops, so
 * "placing an order sends exactly one email" holds end to end — as long as the effect lives in the
 * inbox's transaction (a row in the same database). An effect outside it (an HTTP call, an email
 * API) can still happen twice when the commit fails after it; make such calls idempotent too.
 *
 * <p><b>Concurrency.</b> Concurrent deliveries of one id to one consumer: exactly one runs the
 * work; the others wait until it finishes and then see {@link InboxResult#DUPLICATE} — no error,
 * no deadlock. If the first one fails, the id is not recorded and a waiting duplicate runs the work
 * instead.
 *
 * <p><b>Retention.</b> Recorded ids are kept for a retention window and then deleted by
 * {@link #cleanUp} (see {@link InboxCleaner}). A duplicate that arrives after its id was cleaned up
 * is NOT recognised and runs the work again: keep the window longer than the longest time a
 * message can be redelivered (broker retention, relay backlog, lease timeouts, consumer outages).
 *
 * <p>Implementations are thread-safe. Failures of the inbox itself (the database is down) are
 * {@link dev.outboxjava.core.OutboxStoreException}s; nothing is recorded then, so a redelivery retries.
 *
 * @param <T> the transaction handle the work receives; adapter-specific (a {@link java.sql.Connection}
 *            for PostgreSQL)
 */
public interface Inbox<T> {

    /**
     * Runs {@code work} for the message unless this consumer already processed it.
     *
     * <p>In one transaction: records ({@code consumerName}, {@code messageId}); if it was already
     * recorded, stops and returns {@link InboxResult#DUPLICATE}; otherwise runs {@code work} and
     * commits both. When {@code work} throws, everything is rolled back — the id is not recorded, so
     * a redelivery of the message runs the work again — and the exception is rethrown unchanged.
     *
     * @param consumerName a stable name of the consumer; see {@link InboxKey}
     * @param messageId    the message's id; see {@link InboxKey}
     * @param work         the effect, applied through the transaction handle
     * @return whether the work ran ({@link InboxResult#PROCESSED}) or was skipped
     * @throws X                                         whatever {@code work} threw, after rollback
     * @throws UnidentifiableMessageException            when the message id is blank or too long
     * @throws dev.outboxjava.core.InvalidConfigurationException when the consumer name is blank or too long
     * @throws dev.outboxjava.core.OutboxStoreException  when the inbox could not record or commit
     */
    <X extends Exception> InboxResult process(String consumerName, String messageId, InboxWork<T, X> work) throws X;

    /** Whether this consumer processed (and committed) the message and its record was not cleaned up yet. */
    boolean isProcessed(String consumerName, String messageId);

    /**
     * Deletes up to {@code limit} records processed before {@code processedBefore}, oldest first.
     * After that, a duplicate of one of those messages is no longer recognised.
     *
     * @return how many records were deleted
     */
    int cleanUp(Instant processedBefore, int limit);
}
