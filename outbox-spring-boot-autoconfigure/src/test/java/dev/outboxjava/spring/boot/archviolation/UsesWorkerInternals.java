package dev.outboxjava.spring.boot.archviolation;

import dev.outboxjava.worker.internal.WakeUpSignal;

/** Breaks the auto-configuration's architecture rule on purpose: another module's internals. */
public final class UsesWorkerInternals {

    private UsesWorkerInternals() {
    }

    static Object signal() {
        return new WakeUpSignal();
    }
}
