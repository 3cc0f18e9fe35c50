package dev.outboxjava.core.inbox;

/** What {@link Inbox#process} did with a message. */
public enum InboxResult {

    /** The message was new for this consumer: the work ran and its id was recorded in the same commit. */
    PROCESSED,

    /** This consumer already processed the message: the work did not run. */
    DUPLICATE;

    /** Whether the work ran. */
    public boolean processed() {
        return this == PROCESSED;
    }
}
