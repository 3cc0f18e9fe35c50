package dev.outboxjava.console;

import java.util.Objects;

/**
 * A database health signal as the console shows it: what was measured, the threshold it is judged by,
 * and whether it is within it.
 *
 * @param name      e.g. {@code dead tuples}
 * @param value     the reading, as text
 * @param threshold the rule it is judged by, as text ({@code –} when none)
 * @param ok        whether the reading is within the threshold
 */
public record HealthSignal(String name, String value, String threshold, boolean ok) {

    public HealthSignal {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(threshold, "threshold");
    }
}
