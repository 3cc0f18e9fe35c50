// Fixture for ArchitectureTest: with ExamplesCycle, deliberately breaks "no cycles between top-level packages".
package dev.outboxjava.worker.archviolation;

import dev.outboxjava.examples.archviolation.ExamplesCycle;

/** Half of a worker ⇄ examples cycle. */
public final class WorkerCycle {

    public String describe(ExamplesCycle partner) {
        return "worker with " + partner;
    }
}
