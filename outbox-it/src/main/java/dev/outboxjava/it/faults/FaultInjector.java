package dev.outboxjava.it.faults;

/**
 * Injects one fault and returns when it is over (the broker is back, the relay restarted, ...).
 * Implementations open an {@link ExposureLog} window around the fault so the checker can tell an
 * explained duplicate from an unexplained one. See {@link FaultInjectors} for the standard ones.
 */
@FunctionalInterface
public interface FaultInjector {

    /** Injects the fault; blocks for its duration. */
    InjectedFault inject() throws Exception;
}
