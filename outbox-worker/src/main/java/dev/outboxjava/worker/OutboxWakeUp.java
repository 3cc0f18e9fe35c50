package dev.outboxjava.worker;

/**
 * Wakes idle relay threads at once instead of at their next poll. Get it from the injector (or
 * {@link OutboxWorker#wakeUp()}) and call {@link #signal()} after a transaction that appended
 * events commits, when the appender and the relay share a JVM: the in-process alternative to the
 * database's NOTIFY, at no cost to the producer's commit. Cheap, thread-safe, never blocks; a
 * signal while every relay thread is busy makes the first to finish run another tick right after.
 */
public interface OutboxWakeUp {

    /**
     * Wakes one idle relay thread, unless a lease has started since (that lease sees what committed
     * before this call). Call it after the commit, never before.
     */
    void signal();
}
