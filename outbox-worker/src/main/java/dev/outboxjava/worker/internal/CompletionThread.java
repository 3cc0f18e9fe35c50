package dev.outboxjava.worker.internal;

import dev.outboxjava.core.relay.RelayResult;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Completes a relay thread's batches on a thread of its own, so that a batch's marks run beside the
 * relay thread's next lease, each on a database session of its own: while draining, the lease and the
 * marks overlap instead of taking turns, the way the database itself drains fastest (scenario 1 of the
 * benchmarks: two sessions at once).
 *
 * <p>The thread starts with the first batch and ends after {@link #IDLE_END} without one, so a relay
 * that never drains holds no thread. It takes the batches in turn; a relay thread begins a completion
 * only after taking the previous one's result, so at most one batch is being completed at a time.
 *
 * <p>Interrupting the relay thread while it waits for a result (a shutdown's last resort) interrupts
 * the completion as well, which then gives its batch up as the relay thread itself would have; the
 * wait goes on until the completion returns, so its outcome is never lost.
 */
public final class CompletionThread implements BatchCompleter {

    /** How long the thread outlives its last batch. */
    static final Duration IDLE_END = Duration.ofMinutes(1);

    private final ThreadPoolExecutor executor;

    /** @param relayName the relay thread's name; the thread is {@code outbox-<relayName>-marks} */
    public CompletionThread(String relayName) {
        String name = "outbox-" + relayName + "-marks";
        this.executor = new ThreadPoolExecutor(
                1, 1, IDLE_END.toMillis(), TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), work -> {
                    Thread thread = new Thread(work, name);
                    thread.setDaemon(true);
                    return thread;
                });
        this.executor.allowCoreThreadTimeOut(true);
    }

    @Override
    public Supplier<RelayResult> begin(Supplier<RelayResult> completion) {
        Running running = new Running(completion);
        executor.execute(running);
        return running::result;
    }

    @Override
    public void close() {
        executor.shutdown();
    }

    /** One completion on the thread, and its result. */
    private static final class Running implements Runnable {
        private final Supplier<RelayResult> completion;
        private final CompletableFuture<RelayResult> outcome = new CompletableFuture<>();
        /** The thread while it runs the completion; guarded by this. */
        private Thread runner;

        Running(Supplier<RelayResult> completion) {
            this.completion = completion;
        }

        @Override
        public void run() {
            synchronized (this) {
                runner = Thread.currentThread();
            }
            try {
                outcome.complete(completion.get());
            } catch (Throwable failure) {
                outcome.completeExceptionally(failure);
            } finally {
                synchronized (this) {
                    runner = null;
                    Thread.interrupted(); // an interrupt meant for this completion must not reach the next
                }
            }
        }

        RelayResult result() {
            boolean interrupted = false;
            try {
                while (true) {
                    try {
                        return outcome.get();
                    } catch (InterruptedException e) {
                        interrupted = true;
                        interruptRunner();
                    } catch (ExecutionException e) {
                        Throwable failure = e.getCause();
                        if (failure instanceof RuntimeException unchecked) {
                            throw unchecked;
                        }
                        if (failure instanceof Error error) {
                            throw error;
                        }
                        throw new IllegalStateException("completing a batch failed", failure);
                    }
                }
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        private synchronized void interruptRunner() {
            if (runner != null) {
                runner.interrupt();
            }
        }
    }
}
