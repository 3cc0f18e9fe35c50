package dev.outboxjava.core;

/**
 * Whether an adapter can reach what it wraps right now, with a line an operator can act on.
 *
 * @param healthy whether the dependency answered
 * @param detail  what was checked, or why it failed
 */
public record HealthCheck(boolean healthy, String detail) {

    public static HealthCheck up(String detail) {
        return new HealthCheck(true, detail);
    }

    public static HealthCheck down(String detail) {
        return new HealthCheck(false, detail);
    }
}
