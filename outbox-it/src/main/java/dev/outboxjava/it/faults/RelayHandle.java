package dev.outboxjava.it.faults;

/**
 * A relay the harness runs and can kill: an OS process ({@link RelayProcess}) or a relay in this JVM
 * ({@link InJvmRelay}).
 */
public interface RelayHandle extends AutoCloseable {

    /** A readable name, e.g. {@code relay-2}. */
    String name();

    /** Whether it is still running. */
    boolean isAlive();

    /** Dies at once, with no chance to mark or release what it holds (SIGKILL for a process). */
    void kill();

    /** How many marks it reported as refused because another relay owned the events (lease lost). */
    default long leaseLostCount() {
        return leaseLostIds().size();
    }

    /**
     * The events whose mark it reported as refused because another relay owned them by then (lease lost):
     * their lease expired while this relay still worked on them, so a duplicate of each is explained.
     */
    java.util.Set<java.util.UUID> leaseLostIds();

    /** Stops it (gracefully where possible); idempotent. */
    @Override
    void close();
}
