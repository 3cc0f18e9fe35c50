package dev.outboxjava.rabbitmq;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.PublishOutcome;
import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.rabbitmq.internal.BatchPublication;
import dev.outboxjava.rabbitmq.internal.BatchSender;
import dev.outboxjava.rabbitmq.internal.BrokerUnavailableException;
import dev.outboxjava.rabbitmq.internal.ChannelPool;
import dev.outboxjava.rabbitmq.internal.ConnectionManager;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes outbox events to RabbitMQ with publisher confirms.
 *
 * <h2>On the wire</h2>
 * Each event becomes one message to the exchange named by {@link OutboxEvent#destination()} with the
 * event's routing key, published {@code mandatory}, with delivery mode 2 (persistent),
 * {@code message_id} = event id, {@code content_type}, {@code timestamp} (creation time, seconds) and
 * {@code type}. Its headers are the event's own headers plus the CloudEvents attributes in the
 * {@code cloudEvents:} prefix of the CloudEvents AMQP binding: {@code cloudEvents:specversion}
 * ({@code 1.0}), {@code cloudEvents:id}, {@code cloudEvents:source}, {@code cloudEvents:type},
 * {@code cloudEvents:time} (RFC 3339), when the event has a key {@code cloudEvents:partitionkey}
 * (the CloudEvents partitioning extension), and when it has them {@code cloudEvents:subject} and
 * {@code cloudEvents:dataschema}: the attributes of {@link dev.outboxjava.core.CloudEventAttributes},
 * the same as the Kafka publisher writes. An event whose own header is named like a CloudEvents
 * header (a stored row written without the event builder) is not sent: it fails, not retryable.
 *
 * <h2>Outcomes</h2>
 * A batch is published on one channel, in order, without waiting in between; the publisher confirms
 * are tracked by delivery tag and awaited together, for at most the shorter of the publish timeout
 * and {@link RabbitMqPublisherConfig#confirmTimeout()}. Each event then has its own outcome:
 * <ul>
 *   <li>acknowledged → published;</li>
 *   <li>returned as unroutable (no queue bound for the routing key) → unroutable failure
 *       ({@link PublishOutcome#unroutable}) naming the exchange and routing key: retryable, because a
 *       binding may appear later, within the retry policy's small budget for unroutable events;</li>
 *   <li>negatively acknowledged, not confirmed in time, or its channel/connection lost before the
 *       confirm → retryable failure;</li>
 *   <li>the exchange does not exist → unroutable failure naming the exchange. Each exchange of a batch
 *       is checked with a passive declare on a channel of its own before the batch is sent (the answer
 *       is remembered for exchanges that exist), so the events for a missing exchange are never sent
 *       and the 404 that would close the batch's channel — losing the confirms of its neighbours, which
 *       would then be published twice — does not happen;</li>
 *   <li>an earlier event of its key in the batch failed or was not confirmed → held back
 *       ({@link PublishOutcome#heldBack}, {@link dev.outboxjava.core.port.KeyHoldBack}): not sent if
 *       that was known in time, and not reported published even if it was confirmed.</li>
 * </ul>
 * {@link #publish} never throws: when RabbitMQ is unreachable every event is a retryable failure,
 * and the client's automatic connection recovery reconnects in the background.
 *
 * <h2>Threads</h2>
 * Thread-safe. Up to {@link RabbitMqPublisherConfig#maxConcurrentBatches()} batches are published at
 * once, each on its own channel and pool thread; more wait their turn (the wait counts against their
 * timeout), so the limit should be at least the number of relay threads. Channels are reused from
 * batch to batch and pool threads end after a minute idle. One AMQP connection, named by
 * {@link RabbitMqPublisherConfig#connectionName()}.
 */
public final class RabbitMqPublisher implements Publisher {

    private static final Logger log = LoggerFactory.getLogger(RabbitMqPublisher.class);
    /** How long past its deadline a batch's future is completed by the timer if the sender has not. */
    private static final long DEADLINE_SLACK_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    private static final long IDLE_THREAD_KEEP_ALIVE_SECONDS = 60;
    /** How long {@link #close()} waits for the broker to answer the connection's close. */
    private static final Duration CONNECTION_CLOSE_TIMEOUT = Duration.ofSeconds(5);

    private final RabbitMqPublisherConfig config;
    private final ConnectionManager connections;
    private final ChannelPool channels;
    private final BatchSender sender;
    private final ExecutorService executor;
    private final ScheduledExecutorService deadlines;
    private volatile boolean closed;

    /**
     * Creates a publisher and tries to connect; an unreachable broker is not an error here (the
     * publisher keeps trying, and {@link #checkHealth()} reports it).
     */
    public RabbitMqPublisher(RabbitMqPublisherConfig config) {
        this(config, connectionFactory(config), config.describeBroker());
    }

    /**
     * Creates a publisher that reaches RabbitMQ with the application's own connection settings: a copy
     * of {@code applicationFactory} (host, port, credentials, virtual host, TLS, heartbeat and timeouts
     * as the application configured them, e.g. Spring AMQP's {@code getRabbitConnectionFactory()} built
     * from {@code spring.rabbitmq.*}), with automatic recovery switched on and the recovery interval of
     * {@code config}. The broker settings of {@code config} (URI, host, credentials, client properties)
     * are not used; its connection name, confirm timeout and batch limits are. The application's factory
     * itself is not changed. The publisher opens its own connection from the copy.
     */
    public RabbitMqPublisher(RabbitMqPublisherConfig config, ConnectionFactory applicationFactory) {
        this(config, copyOf(applicationFactory, config), describe(applicationFactory));
    }

    private RabbitMqPublisher(RabbitMqPublisherConfig config, ConnectionFactory factory, String broker) {
        this.config = Objects.requireNonNull(config, "config");
        this.connections = new ConnectionManager(factory, config.connectionName(), broker, config.recoveryInterval());
        this.channels = new ChannelPool(connections);
        this.sender = new BatchSender(channels, connections, config.virtualHost());
        ThreadPoolExecutor pool = new ThreadPoolExecutor(
                config.maxConcurrentBatches(),
                config.maxConcurrentBatches(),
                IDLE_THREAD_KEEP_ALIVE_SECONDS,
                TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(),
                threads(config.connectionName()));
        // a generous limit costs nothing while fewer batches are in flight
        pool.allowCoreThreadTimeOut(true);
        this.executor = pool;
        ScheduledThreadPoolExecutor timers =
                new ScheduledThreadPoolExecutor(1, threads(config.connectionName() + "-deadlines"));
        timers.setRemoveOnCancelPolicy(true);
        this.deadlines = timers;
        try {
            connections.connection();
        } catch (BrokerUnavailableException e) {
            // logged by the connection manager; the first batch tries again
        }
    }

    static ConnectionFactory connectionFactory(RabbitMqPublisherConfig config) {
        ConnectionFactory factory = new ConnectionFactory();
        factory.setHandshakeTimeout((int) config.connectionTimeout().toMillis());
        configure(factory, config.clientProperties());
        // the typed settings already hold what the client properties said about them
        factory.setHost(config.host());
        factory.setPort(config.port());
        factory.setVirtualHost(config.virtualHost());
        factory.setUsername(config.username());
        factory.setPassword(config.password());
        factory.setConnectionTimeout((int) config.connectionTimeout().toMillis());
        factory.setRequestedHeartbeat((int) config.heartbeat().toSeconds());
        factory.setNetworkRecoveryInterval(config.recoveryInterval().toMillis());
        return factory;
    }

    private static ConnectionFactory copyOf(ConnectionFactory applicationFactory, RabbitMqPublisherConfig config) {
        ConnectionFactory copy =
                Objects.requireNonNull(applicationFactory, "applicationFactory").clone();
        copy.setAutomaticRecoveryEnabled(true);
        copy.setTopologyRecoveryEnabled(false);
        copy.setNetworkRecoveryInterval(config.recoveryInterval().toMillis());
        return copy;
    }

    private static String describe(ConnectionFactory factory) {
        return factory.getHost() + ":" + factory.getPort() + " (virtual host '" + factory.getVirtualHost() + "', user '"
                + factory.getUsername() + "'" + (factory.isSSL() ? ", TLS" : "") + ")";
    }

    /** The client properties through amqp-client's own configurator, then what the publisher must own. */
    static void configure(ConnectionFactory factory, java.util.Map<String, String> clientProperties) {
        if (!clientProperties.isEmpty()) {
            com.rabbitmq.client.ConnectionFactoryConfigurator.load(factory, clientProperties, "");
        }
        factory.setAutomaticRecoveryEnabled(true);
        // The publisher declares nothing and reopens its own channels (their confirm sequence
        // numbers restart on a new channel), so the client has no topology to replay.
        factory.setTopologyRecoveryEnabled(false);
    }

    private static ThreadFactory threads(String connectionName) {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, "outbox-rabbitmq-" + connectionName + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    /**
     * Publishes the batch, in order, and completes with one outcome per event once every event is
     * confirmed or failed, or the wait (the shorter of {@code timeout} and the configured confirm
     * timeout) is over. Never completes exceptionally.
     */
    @Override
    public CompletableFuture<List<PublishOutcome>> publish(List<OutboxEvent> batch, Duration timeout) {
        List<OutboxEvent> events = List.copyOf(batch);
        if (events.isEmpty()) {
            return CompletableFuture.completedFuture(List.of());
        }
        Duration wait = timeout.compareTo(config.confirmTimeout()) < 0 ? timeout : config.confirmTimeout();
        if (wait.isNegative() || wait.isZero()) {
            return CompletableFuture.completedFuture(
                    failAll(events, "publish timeout must be positive, was " + timeout));
        }
        if (closed) {
            return CompletableFuture.completedFuture(failAll(events, "the RabbitMQ publisher is closed"));
        }
        long deadline = System.nanoTime() + wait.toNanos();
        BatchPublication publication = new BatchPublication(events);
        CompletableFuture<List<PublishOutcome>> result = new CompletableFuture<>();
        // Completes on time even when the publishing thread is stuck (a connection blocked by a
        // broker alarm) or the batch still waits for a free thread.
        ScheduledFuture<?> timer;
        try {
            timer = deadlines.schedule(
                    () -> result.complete(publication.finish(BatchSender.timeoutReason(wait))),
                    wait.toNanos() + DEADLINE_SLACK_NANOS,
                    TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            return CompletableFuture.completedFuture(failAll(events, "the RabbitMQ publisher is closed"));
        }
        // drop the timer (and its hold on the batch's payloads) as soon as the batch is done
        result.whenComplete((outcomes, failure) -> timer.cancel(false));
        try {
            executor.execute(() -> {
                try {
                    result.complete(sender.send(publication, deadline, wait));
                } catch (RuntimeException | Error e) {
                    log.error("unexpected failure while publishing a batch of {} events to RabbitMQ", events.size(), e);
                    result.complete(publication.finish("unexpected publisher failure: " + e));
                }
            });
        } catch (RejectedExecutionException e) {
            result.complete(failAll(events, "the RabbitMQ publisher is closed"));
        }
        return result;
    }

    private static List<PublishOutcome> failAll(List<OutboxEvent> events, String reason) {
        return events.stream()
                .map(event -> PublishOutcome.failed(event.id(), reason, true))
                .toList();
    }

    /** Healthy when the connection is open (connecting first if there is none yet). */
    @Override
    public HealthCheck checkHealth() {
        try {
            Connection connection = connections.connection();
            return HealthCheck.up("connected to RabbitMQ at " + config.describeBroker() + " as '"
                    + config.connectionName() + "' (server "
                    + connection.getServerProperties().get("product") + " "
                    + connection.getServerProperties().get("version") + ")");
        } catch (BrokerUnavailableException e) {
            return HealthCheck.down(e.getMessage());
        }
    }

    /** The configuration this publisher was built with. */
    public RabbitMqPublisherConfig config() {
        return config;
    }

    /**
     * Stops taking batches, lets those in flight finish for up to the confirm timeout, then closes the
     * channels and the connection, waiting up to 5 s for the broker to answer the close. Idempotent.
     */
    @Override
    public void close() {
        close(config.confirmTimeout().plus(CONNECTION_CLOSE_TIMEOUT));
    }

    /**
     * Like {@link #close()}, within {@code timeout} all of it, whatever the broker does: batches in
     * flight get up to the confirm timeout but no more than half of it (at most
     * {@code timeout} − 5 s when it is longer), and the connection closes in the rest; a broker that
     * does not answer the close in time has the socket dropped.
     */
    @Override
    public void close(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (closed) {
            return;
        }
        closed = true;
        long budget = Math.max(0, timeout.toNanos());
        long deadline = System.nanoTime() + budget;
        long forConnection = Math.min(CONNECTION_CLOSE_TIMEOUT.toNanos(), budget / 2);
        long forBatches = Math.min(config.confirmTimeout().toNanos(), budget - forConnection);
        executor.shutdown();
        try {
            if (!executor.awaitTermination(forBatches, TimeUnit.NANOSECONDS)) {
                executor.shutdownNow();
            }
        } catch (InterruptedException e) {
            executor.shutdownNow();
            Thread.currentThread().interrupt();
        }
        deadlines.shutdown(); // pending deadlines still fire, completing any batch that never ran
        // closing the connection closes its channels; an idle channel closed on its own first would wait
        // for a broker that may not answer
        connections.close(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
        channels.closeAll();
        log.info("RabbitMQ publisher '{}' closed", config.connectionName());
    }
}
