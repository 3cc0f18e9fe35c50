package dev.outboxjava.worker.internal;

import dev.outboxjava.core.OutboxStoreException;

/** Sorts a failed tick: a database outage, or a bug. A {@link VirtualMachineError} is never swallowed. */
final class Failures {

    private Failures() {
    }

    static void rethrowFatal(Throwable failure) {
        if (failure instanceof VirtualMachineError fatal) {
            throw fatal;
        }
    }

    static boolean isStoreOutage(Throwable failure) {
        return failure instanceof OutboxStoreException;
    }

    static String describe(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = failure.getMessage() != null ? failure.getMessage() : failure.getClass().getName();
        return root == failure ? message : message + " (cause: " + root + ")";
    }
}
