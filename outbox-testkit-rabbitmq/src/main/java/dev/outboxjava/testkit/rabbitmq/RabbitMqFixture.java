package dev.outboxjava.testkit.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.Envelope;
import dev.outboxjava.testkit.fixture.DockerAvailability;
import dev.outboxjava.testkit.fixture.LocalPort;
import dev.outboxjava.testkit.fixture.ServiceConfig;
import dev.outboxjava.testkit.fixture.ServiceOrigin;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.rabbitmq.RabbitMQContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * A RabbitMQ-compatible AMQP 0-9-1 broker for tests, found in this order and logged:
 * <ol>
 *   <li>the AMQP URI in {@value #URI_PROPERTY} (system property) or {@code OUTBOX_TEST_RABBITMQ_URI};</li>
 *   <li>a RabbitMQ container through Testcontainers, when a Docker engine is reachable;</li>
 *   <li>a RabbitMQ on {@code 127.0.0.1:5672} ({@code guest}/{@code guest}), when something listens there;</li>
 *   <li>an Apache Qpid Broker-J started in this JVM (in-memory, ephemeral port), which accepts the
 *       RabbitMQ Java client including publisher confirms and mandatory returns.</li>
 * </ol>
 * Setting {@code outbox.test.skip-local=true} skips Docker and the local port and goes straight to
 * the embedded broker (unless an explicit URI is given).
 *
 * <pre>{@code
 * try (RabbitMqFixture rabbit = RabbitMqFixture.start()) {
 *     RabbitMqDestination orders = rabbit.createDestination("orders");
 *     // ... publish to orders.exchange() ...
 *     List<Delivery> arrived = rabbit.receive(orders, 3, Duration.ofSeconds(10));
 * }
 * }</pre>
 *
 * <p>Each destination has a random suffix, so tests sharing one broker never see each other's
 * messages. {@link #close()} deletes the destinations still declared and stops what the fixture
 * started (the container or the embedded broker); a broker found elsewhere is left running.
 * Thread-safe.
 */
public final class RabbitMqFixture implements AutoCloseable {

    /** System property (or {@code OUTBOX_TEST_RABBITMQ_URI}) with the AMQP URI of a broker to use. */
    public static final String URI_PROPERTY = "outbox.test.rabbitmq.uri";
    /** The image started when Docker is reachable. */
    public static final String DOCKER_IMAGE = "rabbitmq:4.1-alpine";
    /** Where a local RabbitMQ is looked for. */
    public static final String LOCAL_HOST = "127.0.0.1";
    /** The default AMQP port. */
    public static final int LOCAL_PORT = 5672;

    private static final Logger log = LoggerFactory.getLogger(RabbitMqFixture.class);

    private final ServiceOrigin origin;
    private final ConnectionFactory factory;
    private final AutoCloseable started;
    private final Connection admin;
    private final Set<RabbitMqDestination> declared = ConcurrentHashMap.newKeySet();

    private RabbitMqFixture(ServiceOrigin origin, ConnectionFactory factory, AutoCloseable started) {
        this.origin = origin;
        this.factory = factory;
        this.started = started;
        try {
            this.admin = factory.newConnection("outbox-testkit-fixture-" + UUID.randomUUID());
        } catch (IOException | TimeoutException e) {
            stopQuietly(started);
            throw new IllegalStateException(
                    "could not connect to the " + origin + " AMQP broker at " + describe(factory) + ": " + e, e);
        }
    }

    /**
     * Finds or starts a broker (see the class comment for the order) and connects to it.
     *
     * @throws IllegalStateException when the chosen broker cannot be reached or started
     */
    public static RabbitMqFixture start() {
        var explicit = ServiceConfig.lookup(URI_PROPERTY);
        if (explicit.isPresent()) {
            ConnectionFactory factory = factory();
            try {
                factory.setUri(explicit.get());
            } catch (Exception e) {
                throw new IllegalStateException(
                        "the AMQP URI in " + URI_PROPERTY + " is not usable: " + e.getMessage(), e);
            }
            log.info("RabbitMQ fixture: using the broker from {} at {}", URI_PROPERTY, describe(factory));
            return new RabbitMqFixture(ServiceOrigin.EXPLICIT, factory, null);
        }
        if (DockerAvailability.isAvailable()) {
            RabbitMQContainer container = new RabbitMQContainer(DockerImageName.parse(DOCKER_IMAGE));
            container.start();
            ConnectionFactory factory = factory();
            factory.setHost(container.getHost());
            factory.setPort(container.getAmqpPort());
            factory.setUsername(container.getAdminUsername());
            factory.setPassword(container.getAdminPassword());
            log.info("RabbitMQ fixture: started a Testcontainers {} at {}", DOCKER_IMAGE, describe(factory));
            return new RabbitMqFixture(ServiceOrigin.TESTCONTAINERS, factory, container::stop);
        }
        if (!ServiceConfig.isTrue(ServiceConfig.SKIP_LOCAL) && LocalPort.isOpen(LOCAL_HOST, LOCAL_PORT, 500)) {
            ConnectionFactory factory = factory();
            factory.setHost(LOCAL_HOST);
            factory.setPort(LOCAL_PORT);
            log.info("RabbitMQ fixture: using the local broker at {}", describe(factory));
            return new RabbitMqFixture(ServiceOrigin.LOCAL, factory, null);
        }
        EmbeddedQpidBroker broker = EmbeddedQpidBroker.start();
        ConnectionFactory factory = factory();
        factory.setHost(LOCAL_HOST);
        factory.setPort(broker.port());
        factory.setUsername(EmbeddedQpidBroker.USERNAME);
        factory.setPassword(EmbeddedQpidBroker.PASSWORD);
        log.info(
                "RabbitMQ fixture: started an embedded Apache Qpid Broker-J (AMQP 0-9-1, in-memory) at {}",
                describe(factory));
        return new RabbitMqFixture(ServiceOrigin.EMBEDDED, factory, broker);
    }

    private static ConnectionFactory factory() {
        ConnectionFactory factory = new ConnectionFactory();
        factory.setAutomaticRecoveryEnabled(false);
        factory.setConnectionTimeout(10_000);
        return factory;
    }

    private static String describe(ConnectionFactory factory) {
        return factory.getHost() + ":" + factory.getPort() + " (virtual host '" + factory.getVirtualHost() + "', user '"
                + factory.getUsername() + "')";
    }

    /** Where the broker came from. */
    public ServiceOrigin origin() {
        return origin;
    }

    /** The broker host. */
    public String host() {
        return factory.getHost();
    }

    /** The broker's AMQP port. */
    public int port() {
        return factory.getPort();
    }

    /** The virtual host to use. */
    public String virtualHost() {
        return factory.getVirtualHost();
    }

    /** The username. */
    public String username() {
        return factory.getUsername();
    }

    /** The password. */
    public String password() {
        return factory.getPassword();
    }

    /** The broker as an AMQP URI, e.g. {@code amqp://guest:guest@127.0.0.1:5672/%2F}. */
    public String uri() {
        return "amqp://" + encode(username()) + ":" + encode(password()) + "@" + host() + ":" + port() + "/"
                + encode(virtualHost());
    }

    private static String encode(String part) {
        return URLEncoder.encode(part, StandardCharsets.UTF_8).replace("+", "%20");
    }

    /** A new connection factory for this broker (automatic recovery off; configure as needed). */
    public ConnectionFactory connectionFactory() {
        ConnectionFactory copy = factory();
        copy.setHost(host());
        copy.setPort(port());
        copy.setVirtualHost(virtualHost());
        copy.setUsername(username());
        copy.setPassword(password());
        return copy;
    }

    /**
     * Declares a fresh, non-durable topic exchange {@code <prefix>.<random>} and a queue of the same
     * name bound to it with {@code #}, so every routing key arrives.
     *
     * @param prefix a readable start for the names, e.g. the test's name
     */
    public RabbitMqDestination createDestination(String prefix) {
        Objects.requireNonNull(prefix, "prefix");
        String name = prefix.replaceAll("[^A-Za-z0-9._-]", "-") + "."
                + UUID.randomUUID().toString().substring(0, 8);
        RabbitMqDestination destination = new RabbitMqDestination(name, name);
        withChannel(channel -> {
            channel.exchangeDeclare(destination.exchange(), BuiltinExchangeType.TOPIC, false, false, null);
            channel.queueDeclare(destination.queue(), false, false, false, null);
            channel.queueBind(destination.queue(), destination.exchange(), "#");
            return null;
        });
        declared.add(destination);
        return destination;
    }

    /** Declares a fresh exchange with no queue bound: every message published to it is unroutable. */
    public String createUnboundExchange(String prefix) {
        String name = prefix.replaceAll("[^A-Za-z0-9._-]", "-") + "."
                + UUID.randomUUID().toString().substring(0, 8);
        withChannel(channel -> channel.exchangeDeclare(name, BuiltinExchangeType.TOPIC, false, false, null));
        declared.add(new RabbitMqDestination(name, ""));
        return name;
    }

    /** Deletes the exchange and queue of {@code destination}; already deleted parts are skipped. */
    public void delete(RabbitMqDestination destination) {
        declared.remove(destination);
        if (!destination.queue().isEmpty()) {
            withChannel(channel -> channel.queueDelete(destination.queue()));
        }
        withChannel(channel -> channel.exchangeDelete(destination.exchange()));
    }

    /** Whether an exchange of this name exists now. */
    public boolean exchangeExists(String exchange) {
        try (Channel channel = admin.createChannel()) {
            channel.exchangeDeclarePassive(exchange);
            return true;
        } catch (IOException e) {
            return false; // the broker closed the channel: 404 not found
        } catch (TimeoutException e) {
            return true;
        }
    }

    /**
     * Reads the messages that arrive in {@code destination}'s queue, acknowledging them, until
     * {@code expected} arrived or {@code timeout} passed; returns what arrived, in arrival order.
     */
    public List<Delivery> receive(RabbitMqDestination destination, int expected, Duration timeout) {
        return receive(destination.queue(), expected, timeout);
    }

    /** As {@link #receive(RabbitMqDestination, int, Duration)}, from a queue by name. */
    public List<Delivery> receive(String queue, int expected, Duration timeout) {
        return receiveUntil(queue, received -> received.size() >= expected, timeout);
    }

    /**
     * Reads the messages that arrive in {@code destination}'s queue, acknowledging them, until every one
     * of {@code messageIds} arrived at least once or {@code timeout} passed; returns what arrived, in
     * arrival order, repeats included. For at-least-once publishing, where a redelivered message would
     * fill a count of expected messages while another has not arrived yet.
     */
    public List<Delivery> receiveEach(
            RabbitMqDestination destination, Collection<String> messageIds, Duration timeout) {
        Set<String> missing = new HashSet<>(messageIds);
        return receiveUntil(
                destination.queue(),
                received -> {
                    if (!received.isEmpty()) {
                        missing.remove(received.get(received.size() - 1)
                                .getProperties()
                                .getMessageId());
                    }
                    return missing.isEmpty();
                },
                timeout);
    }

    /** Reads until {@code enough}, which is asked before the first delivery and after each one, or {@code timeout}. */
    private List<Delivery> receiveUntil(String queue, Predicate<List<Delivery>> enough, Duration timeout) {
        List<Delivery> received = new ArrayList<>();
        LinkedBlockingQueue<Delivery> arrivals = new LinkedBlockingQueue<>();
        try (Channel channel = admin.createChannel()) {
            // Manual acks: a message is acknowledged only once it is in the returned list. With
            // auto-ack, deliveries still in the socket when the consumer is cancelled would be gone
            // from the queue without being returned; unacknowledged ones go back when the channel closes.
            channel.basicQos(1000);
            String tag = channel.basicConsume(queue, false, new DefaultConsumer(channel) {
                @Override
                public void handleDelivery(
                        String consumerTag, Envelope envelope, AMQP.BasicProperties properties, byte[] body) {
                    arrivals.add(new Delivery(envelope, properties, body));
                }
            });
            long deadline = System.nanoTime() + timeout.toNanos();
            while (!enough.test(received)) {
                long left = deadline - System.nanoTime();
                Delivery next = left <= 0 ? null : arrivals.poll(left, TimeUnit.NANOSECONDS);
                if (next == null) {
                    break;
                }
                received.add(next);
                channel.basicAck(next.getEnvelope().getDeliveryTag(), false);
            }
            channel.basicCancel(tag);
            List<Delivery> late = new ArrayList<>();
            arrivals.drainTo(late);
            for (Delivery delivery : late) {
                channel.basicAck(delivery.getEnvelope().getDeliveryTag(), false);
            }
            received.addAll(late);
        } catch (IOException e) {
            throw new UncheckedIOException("could not consume from queue '" + queue + "'", e);
        } catch (TimeoutException e) {
            throw new IllegalStateException("closing the consumer channel of queue '" + queue + "' timed out", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return received;
    }

    private interface ChannelWork {
        Object run(Channel channel) throws IOException;
    }

    private void withChannel(ChannelWork work) {
        try (Channel channel = admin.createChannel()) {
            work.run(channel);
        } catch (IOException e) {
            throw new UncheckedIOException("AMQP operation on " + describe(factory) + " failed: " + e.getMessage(), e);
        } catch (TimeoutException e) {
            throw new IllegalStateException("AMQP channel close timed out on " + describe(factory), e);
        }
    }

    /** Deletes what is still declared and stops the container or embedded broker the fixture started. */
    @Override
    public void close() {
        for (RabbitMqDestination destination : List.copyOf(declared)) {
            try {
                delete(destination);
            } catch (RuntimeException e) {
                log.debug("could not delete {} while closing the fixture", destination, e);
            }
        }
        try {
            admin.close();
        } catch (IOException | RuntimeException e) {
            log.debug("closing the fixture's AMQP connection failed", e);
        }
        stopQuietly(started);
    }

    private static void stopQuietly(AutoCloseable started) {
        if (started == null) {
            return;
        }
        try {
            started.close();
        } catch (Exception e) {
            log.warn("could not stop the AMQP broker the fixture started: {}", e.toString());
        }
    }

    @Override
    public String toString() {
        return "RabbitMqFixture[" + origin.name().toLowerCase(Locale.ROOT) + " " + describe(factory) + "]";
    }
}
