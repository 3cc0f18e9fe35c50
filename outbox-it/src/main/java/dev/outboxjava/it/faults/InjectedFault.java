package dev.outboxjava.it.faults;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * One fault the harness injected.
 *
 * @param kind        what kind of fault
 * @param description what exactly happened, for the log (e.g. {@code SIGKILL relay-2 (pid 4711)})
 * @param startedAt   when the fault began
 * @param duration    how long it lasted (zero for an instantaneous one such as a kill)
 */
public record InjectedFault(FaultKind kind, String description, Instant startedAt, Duration duration) {

    public InjectedFault {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(startedAt, "startedAt");
        Objects.requireNonNull(duration, "duration");
    }

    @Override
    public String toString() {
        return kind + " at " + startedAt + " for " + duration.toMillis() + " ms: " + description;
    }
}
