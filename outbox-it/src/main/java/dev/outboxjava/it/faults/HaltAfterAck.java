package dev.outboxjava.it.faults;

import dev.outboxjava.testkit.FaultyPublisher;
import java.util.Objects;

/**
 * For a relay running in a process of its own: halts the JVM ({@link Runtime#halt}, no shutdown hooks,
 * like SIGKILL) right after the broker acknowledged a batch and before the relay could mark it — the
 * window a random kill rarely hits. Install it in the relay's main method on the relay's
 * {@link FaultyPublisher} (e.g. {@link InJvmRelay#publisher()}); {@link FaultInjectors#processCrashAfterAck}
 * starts such a process and waits for it to die.
 */
public final class HaltAfterAck {

    /** What the process prints (to stderr) just before halting; the injector checks for it. */
    public static final String MARKER = "halting between the broker's acknowledgement and the mark (fault injected)";
    /** The exit code of the halted process. */
    public static final int EXIT_CODE = 137;

    private HaltAfterAck() {}

    /** Halts the JVM after the next batch the broker acknowledges, before it is marked. */
    public static void install(FaultyPublisher publisher) {
        Objects.requireNonNull(publisher, "publisher").beforeMark(acknowledged -> {
            System.err.println(MARKER + ": " + acknowledged.size() + " event(s) acknowledged, first "
                    + acknowledged.get(0).id());
            System.err.flush();
            Runtime.getRuntime().halt(EXIT_CODE);
        });
    }
}
