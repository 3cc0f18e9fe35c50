package dev.outboxjava.it.faults;

/** The kinds of fault the harness injects; each one is counted separately in a {@link FaultReport}. */
public enum FaultKind {
    /** A relay process killed with SIGKILL at a random moment, then restarted. */
    RELAY_KILL,
    /** A relay that dies after the broker acknowledged a batch and before it marked the batch sent. */
    CRASH_AFTER_ACK,
    /** The broker stopped and started again, or the relays' own broker connections closed under them. */
    BROKER_OUTAGE,
    /** The relays' own database sessions terminated ({@code pg_terminate_backend}). */
    DATABASE_DISRUPTION,
    /** A publisher that hangs longer than the lease timeout: the sweeper reclaims, the late mark is lease-lost. */
    PUBLISHER_HANG,
    /** A relay whose clock is skewed by more than the lease timeout against the others. */
    CLOCK_SKEW
}
