package dev.outboxjava.kafka.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.Producer;

/**
 * Asks the producer for topics' partitions off the sender thread. {@link Producer#partitionsFor} blocks
 * up to {@code max.block.ms} for a topic it has no metadata for (one that does not exist, on a cluster
 * that does not create topics): run here, that wait holds no other topic's events, and the sender waits
 * for it only as long as it chooses. A topic has at most one lookup under way per producer; later batches
 * join it instead of starting another wait.
 */
final class TopicLookups implements AutoCloseable {

    /**
     * Most lookups waiting at once. Each waits on a thread of its own, so that no topic's lookup queues
     * behind a topic that never answers; past this many, a topic's lookup fails at once (retryable).
     */
    static final int MAX_CONCURRENT_LOOKUPS = 32;

    private static final AtomicInteger THREADS = new AtomicInteger();

    private record Lookup(Producer<String, byte[]> producer, CompletableFuture<Integer> partitions) {}

    private final ConcurrentMap<String, Lookup> underWay = new ConcurrentHashMap<>();
    private final ThreadPoolExecutor executor;

    TopicLookups(String threadNamePrefix) {
        this.executor = new ThreadPoolExecutor(
                0, MAX_CONCURRENT_LOOKUPS, 60, TimeUnit.SECONDS, new SynchronousQueue<>(), runnable -> {
                    Thread thread = new Thread(runnable, threadNamePrefix + THREADS.incrementAndGet());
                    thread.setDaemon(true);
                    return thread;
                });
    }

    /**
     * The number of partitions of {@code topic} as {@code producer} finds it: completes when the producer
     * has the topic's metadata, or exceptionally with what {@link Producer#partitionsFor} threw (a
     * {@link org.apache.kafka.common.errors.TimeoutException} after {@code max.block.ms}). Joins a lookup
     * of the same topic and producer still under way.
     */
    CompletableFuture<Integer> partitions(Producer<String, byte[]> producer, String topic) {
        return underWay.compute(
                        topic,
                        (name, running) -> running != null
                                        && running.producer() == producer
                                        && !running.partitions().isDone()
                                ? running
                                : start(producer, name))
                .partitions();
    }

    /** Stops every lookup under way (their producer is being closed). */
    @Override
    public void close() {
        executor.shutdownNow();
    }

    private Lookup start(Producer<String, byte[]> producer, String topic) {
        CompletableFuture<Integer> partitions = new CompletableFuture<>();
        try {
            executor.execute(() -> {
                try {
                    partitions.complete(producer.partitionsFor(topic).size());
                } catch (RuntimeException | Error e) {
                    partitions.completeExceptionally(e);
                }
            });
        } catch (RejectedExecutionException e) {
            partitions.completeExceptionally(new org.apache.kafka.common.errors.TimeoutException((executor.isShutdown()
                            ? "the Kafka publisher is closed"
                            : MAX_CONCURRENT_LOOKUPS + " topics are already waiting for their metadata")
                    + "; topic '" + topic + "' was not looked up"));
        }
        return new Lookup(producer, partitions);
    }
}
