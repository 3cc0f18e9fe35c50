// Fixture for ArchitectureTest: deliberately breaks "an internal package is used only inside its own module".
package dev.outboxjava.spring.boot.archviolation;

import dev.outboxjava.worker.internal.WakeUpSignal;

/** An auto-configuration class that reaches into the worker's internals. */
public final class SpringUsingWorkerInternals {

    private SpringUsingWorkerInternals() {}

    static Object signal() {
        return new WakeUpSignal();
    }
}
