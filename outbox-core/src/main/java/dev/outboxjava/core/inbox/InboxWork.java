package dev.outboxjava.core.inbox;

/**
 * The consumer's work for one message, run inside the inbox's transaction.
 *
 * <p>The exception type is a type parameter so that work throwing a checked exception (say
 * {@link java.sql.SQLException}) reaches the caller of {@link Inbox#process} unchanged and typed,
 * and work throwing none leaves the call free of checked exceptions (the compiler infers
 * {@link RuntimeException}).
 *
 * @param <T> the transaction handle the inbox adapter hands out (a {@link java.sql.Connection} for PostgreSQL)
 * @param <X> what the work may throw
 */
@FunctionalInterface
public interface InboxWork<T, X extends Exception> {

    /**
     * Applies the message's effect through {@code transaction}. Do not commit, roll back or close
     * it: the inbox commits the effect together with the message id, or rolls both back when this
     * throws.
     */
    void execute(T transaction) throws X;
}
