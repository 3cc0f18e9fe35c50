// Fixture for ArchitectureTest: with WorkerCycle, deliberately breaks "no cycles between top-level packages".
package dev.outboxjava.examples.archviolation;

import dev.outboxjava.worker.archviolation.WorkerCycle;

/** Half of a worker ⇄ examples cycle. */
public final class ExamplesCycle {

    public String describe(WorkerCycle partner) {
        return "example with " + partner;
    }
}
