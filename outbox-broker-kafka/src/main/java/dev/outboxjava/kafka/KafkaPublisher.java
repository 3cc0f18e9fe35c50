package dev.outboxjava.kafka;

import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.PublishOutcome;
import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.kafka.internal.BatchFlusher;
import dev.outboxjava.kafka.internal.BatchOutcomes;
import dev.outboxjava.kafka.internal.BatchSender;
import dev.outboxjava.kafka.internal.ClusterProbe;
import dev.outboxjava.kafka.internal.ProducerLifecycle;
import dev.outboxjava.kafka.internal.ProducerProperties;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes outbox events to Apache Kafka with the idempotent producer and {@code acks=all}.
 *
 * <p>Each event becomes one record: topic = {@link OutboxEvent#destination()}, record key =
 * {@link OutboxEvent#key()} (no key when absent, so same-key events share a partition and keep
 * their order), value = the payload, and headers in CloudEvents binary content mode written by
 * the CloudEvents SDK's Kafka binding ({@code ce_id} = event id, {@code ce_type},
 * {@code ce_source}, {@code ce_time} = creation time in RFC 3339, {@code ce_specversion} = 1.0,
 * {@code content-type}, {@code ce_partitionkey} when there is a key, {@code ce_subject} and
 * {@code ce_dataschema} when the event has them), followed by the event's
 * own headers (UTF-8). Any CloudEvents SDK consumer reads the events back. The attributes are those
 * of {@link dev.outboxjava.core.CloudEventAttributes}, the same as the RabbitMQ publisher writes.
 *
 * <p>{@link #publish} hands the whole batch to the producer on the publisher's sender thread
 * without waiting per record and, by default, has it sent at once rather than after {@code linger.ms}
 * (see {@link KafkaPublisherConfig.Builder#flushEachBatch(boolean)}); then the acknowledgements are
 * awaited together, up to the timeout.
 * Each event gets its own outcome: published once Kafka acknowledged it; otherwise a failure whose
 * reason names the topic and the Kafka error, retryable or not:
 * <ul>
 *   <li>not retryable: record too large ({@code max.request.size} or the topic's
 *       {@code max.message.bytes}), invalid topic name, authorization or authentication failures,
 *       serialization errors, a record the broker refuses, a source that is not a URI, an own header
 *       named like a CloudEvents header (a stored row written without the event builder);</li>
 *   <li>unroutable ({@link PublishOutcome#unroutable}): a topic that does not exist on a cluster that
 *       does not create topics — retryable, as the topic may be created, within the retry policy's small
 *       budget for unroutable events. A batch waits for its topics' metadata at most 2 s (or
 *       {@code max.block.ms} when shorter), then asks the
 *       cluster whether the topics still without it exist; the other topics' events are sent all the
 *       same, and a topic found missing is asked about again, not waited for, in later batches;</li>
 *   <li>retryable: timeouts (including no acknowledgement within the publish timeout), not enough
 *       replicas, leader changes, network errors, broker not available, and anything unknown.</li>
 *   <li>held back ({@link PublishOutcome#heldBack}): an earlier event of its key in the batch failed
 *       or was not acknowledged ({@link dev.outboxjava.core.port.KeyHoldBack}).</li>
 * </ul>
 * {@code publish} never throws: while the cluster is unreachable every event is a retryable
 * failure once {@code max.block.ms} or the publish timeout ran out. A producer that reports a
 * fatal error (e.g. {@code ProducerFencedException}) is closed and created anew before the next
 * send; the events it did not deliver are retryable failures.
 *
 * <p>Thread-safe. Batches are handed to the producer in the order {@code publish} was called.
 * Create one per application with {@link #create(KafkaPublisherConfig)} and {@link #close()} it
 * on shutdown.
 */
public final class KafkaPublisher implements Publisher {

    private static final Logger log = LoggerFactory.getLogger(KafkaPublisher.class);
    private static final AtomicInteger INSTANCES = new AtomicInteger();

    private final KafkaPublisherConfig config;
    private final ProducerLifecycle producers;
    private final ClusterProbe probe;
    private final BatchSender sender;
    private final ExecutorService sendThread;
    /** Null when {@link KafkaPublisherConfig#flushEachBatch()} is off. */
    private final BatchFlusher flusher;

    private final ScheduledThreadPoolExecutor timeouts;
    private final Set<BatchOutcomes> inFlight = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean timeoutWarningGiven = new AtomicBoolean();
    private volatile boolean closed;

    private KafkaPublisher(
            KafkaPublisherConfig config, Function<Map<String, Object>, Producer<String, byte[]>> producerFactory) {
        this.config = config;
        this.producers = new ProducerLifecycle(producerFactory, config.producerProperties());
        this.probe = new ClusterProbe(
                ProducerProperties.adminProperties(config.producerProperties()), config.bootstrapServers());
        this.sender = new BatchSender(producers, probe, config.maxBlock(), config.healthCheckTimeout());
        int instance = INSTANCES.incrementAndGet();
        this.sendThread = new ThreadPoolExecutor(
                1,
                1,
                0,
                TimeUnit.MILLISECONDS,
                new LinkedBlockingQueue<>(),
                runnable -> daemon(runnable, "outbox-kafka-sender-" + instance));
        this.timeouts =
                new ScheduledThreadPoolExecutor(1, runnable -> daemon(runnable, "outbox-kafka-timeouts-" + instance));
        this.timeouts.setRemoveOnCancelPolicy(true);
        this.flusher = config.flushEachBatch() ? new BatchFlusher("outbox-kafka-flusher-" + instance) : null;
    }

    /**
     * Creates a publisher and its producer.
     *
     * @throws dev.outboxjava.core.OutboxException when Kafka refuses to create the producer (for
     *                                             example bootstrap servers that do not resolve)
     */
    public static KafkaPublisher create(KafkaPublisherConfig config) {
        return create(config, KafkaProducer::new);
    }

    /** For tests: a publisher over producers made by {@code producerFactory}. */
    static KafkaPublisher create(
            KafkaPublisherConfig config, Function<Map<String, Object>, Producer<String, byte[]>> producerFactory) {
        Objects.requireNonNull(config, "config");
        KafkaPublisher publisher = new KafkaPublisher(config, producerFactory);
        try {
            publisher.producers.current();
        } catch (RuntimeException e) {
            publisher.close();
            throw new dev.outboxjava.core.OutboxException(
                    "cannot create the Kafka producer for "
                            + config.bootstrapServers() + ": " + e.getMessage() + " (check bootstrap.servers and the "
                            + "security settings)",
                    e);
        }
        log.info("Kafka publisher started: {}", config);
        return publisher;
    }

    /**
     * Publishes {@code batch}; see the class comment for the mapping and the outcomes.
     *
     * @param timeout how long to wait for all acknowledgements; events without one by then are
     *                retryable failures (a late acknowledgement can still deliver them, so a retry
     *                may duplicate them: consumers dedupe on the event id)
     */
    @Override
    public CompletableFuture<List<PublishOutcome>> publish(List<OutboxEvent> batch, Duration timeout) {
        Objects.requireNonNull(batch, "batch");
        Objects.requireNonNull(timeout, "timeout");
        BatchOutcomes outcomes = new BatchOutcomes(batch);
        if (batch.isEmpty()) {
            return outcomes.result();
        }
        if (closed) {
            outcomes.failRemaining(0, "the Kafka publisher is closed");
            return outcomes.result();
        }
        warnIfTimeoutBelowMaxBlock(timeout);
        long deadline = System.nanoTime() + timeout.toNanos();
        inFlight.add(outcomes);
        try {
            ScheduledFuture<?> expiry = timeouts.schedule(
                    () -> outcomes.failRemaining(
                            0,
                            "not acknowledged by Kafka within the publish timeout of " + timeout + " (cluster slow or "
                                    + "unreachable?)"),
                    Math.max(0, timeout.toNanos()),
                    TimeUnit.NANOSECONDS);
            outcomes.result().whenComplete((result, error) -> {
                expiry.cancel(false);
                inFlight.remove(outcomes);
            });
            sendThread.execute(() -> sendSafely(batch, outcomes, deadline));
        } catch (RejectedExecutionException e) {
            outcomes.failRemaining(0, "the Kafka publisher is closed");
        }
        return outcomes.result().copy();
    }

    /**
     * Asks the cluster to describe itself, waiting at most
     * {@link KafkaPublisherConfig#healthCheckTimeout()}.
     */
    @Override
    public HealthCheck checkHealth() {
        if (closed) {
            return HealthCheck.down("the Kafka publisher is closed");
        }
        return probe.health(config.healthCheckTimeout());
    }

    /**
     * Stops accepting batches, lets records already handed over reach Kafka for up to
     * {@link KafkaPublisherConfig#closeTimeout()}, then closes the producer; events still without
     * acknowledgement become retryable failures.
     */
    @Override
    public void close() {
        close(config.closeTimeout());
    }

    /**
     * Like {@link #close()}, within the shorter of {@code timeout} and
     * {@link KafkaPublisherConfig#closeTimeout()}, all of it: a batch still being handed over and the
     * records waiting for Kafka share that time, and then the producer is closed at once.
     */
    @Override
    public void close(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (closed) {
            return;
        }
        closed = true;
        Duration budget = timeout.compareTo(config.closeTimeout()) < 0 ? timeout : config.closeTimeout();
        long deadline = System.nanoTime() + Math.max(0, budget.toNanos());
        sendThread.shutdown();
        try {
            sendThread.awaitTermination(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        producers.close(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
        sendThread.shutdownNow();
        sender.close();
        if (flusher != null) {
            flusher.close();
        }
        for (BatchOutcomes outcomes : inFlight) {
            outcomes.failRemaining(0, "the Kafka publisher was closed before Kafka acknowledged the event");
        }
        timeouts.shutdownNow();
        probe.close();
        log.info("Kafka publisher for {} closed", config.bootstrapServers());
    }

    /** How many Kafka producers this publisher created (more than one after a fatal producer error). */
    int producersCreated() {
        return producers.createdCount();
    }

    private void sendSafely(List<OutboxEvent> batch, BatchOutcomes outcomes, long deadline) {
        try {
            sender.send(batch, outcomes, deadline);
            if (flusher != null) {
                producers.inUse().ifPresent(flusher::request);
            }
        } catch (RuntimeException | Error e) {
            log.error(
                    "unexpected error while handing a batch of {} events to Kafka; they will be retried",
                    batch.size(),
                    e);
            outcomes.failRemaining(0, "unexpected error in the Kafka publisher: " + e);
        }
    }

    private void warnIfTimeoutBelowMaxBlock(Duration timeout) {
        if (timeout.compareTo(config.maxBlock()) < 0 && timeoutWarningGiven.compareAndSet(false, true)) {
            log.warn(
                    "publish timeout {} is shorter than the Kafka producer's max.block.ms ({} ms): while the "
                            + "cluster is unreachable a batch may hold the sender thread past its timeout; set max.block.ms "
                            + "below the publish timeout",
                    timeout,
                    config.maxBlock().toMillis());
        }
    }

    private static Thread daemon(Runnable runnable, String name) {
        Thread thread = new Thread(runnable, name);
        thread.setDaemon(true);
        return thread;
    }
}
