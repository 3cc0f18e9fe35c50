// Fixture for ArchitectureTest: deliberately breaks "an internal package is used only inside its own module".
package dev.outboxjava.relayapp.archviolation;

import dev.outboxjava.worker.internal.Backoff;
import java.time.Duration;

/** A relay-application class that reaches into the worker's internal package. */
public final class RelayAppUsingWorkerInternals {

    public Duration firstPause() {
        return new Backoff(Duration.ofMillis(100), Duration.ofSeconds(1)).delayAfter(1);
    }
}
