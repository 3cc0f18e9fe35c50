package dev.outboxjava.worker.testsupport;

import dev.outboxjava.testkit.fixture.BrokerInbox;
import dev.outboxjava.testkit.postgres.PostgresFixture;
import dev.outboxjava.testkit.rabbitmq.RabbitMqDestination;
import dev.outboxjava.testkit.rabbitmq.RabbitMqFixture;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The services a worker test relays between: the shared PostgreSQL and a RabbitMQ for the test class,
 * and for each test a fresh outbox table, its own exchange and queue, and a consumer of that queue.
 * Register it as a static field ({@code @RegisterExtension static final WorkerFixture fixture = ...});
 * the test's own {@code @BeforeEach} runs after the fresh table exists and its {@code @AfterEach}
 * before the table is dropped.
 */
public final class WorkerFixture implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {

    private final String destinationPrefix;
    private PostgresFixture postgres;
    private RabbitMqFixture rabbit;
    private OutboxTable table;
    private RabbitMqDestination destination;
    private BrokerInbox inbox;

    /** Each test's exchange and queue are named {@code destinationPrefix} and a random suffix. */
    public WorkerFixture(String destinationPrefix) {
        this.destinationPrefix = destinationPrefix;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        postgres = PostgresFixture.shared();
        rabbit = RabbitMqFixture.start();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        rabbit.close();
    }

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        table = new OutboxTable(postgres);
        destination = rabbit.createDestination(destinationPrefix);
        inbox = BrokerInbox.amqp(rabbit.connectionFactory(), destination.queue());
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        inbox.close();
        rabbit.delete(destination);
        table.close();
    }

    public PostgresFixture postgres() {
        return postgres;
    }

    public RabbitMqFixture rabbit() {
        return rabbit;
    }

    /** The RabbitMQ URI with {@code port} in place of the broker's own, e.g. a {@link TcpProxy}'s. */
    public String rabbitUriVia(int port) {
        return "amqp://" + rabbit.username() + ":" + rabbit.password() + "@" + rabbit.host() + ":" + port + "/"
                + URLEncoder.encode(rabbit.virtualHost(), StandardCharsets.UTF_8);
    }

    /** This test's outbox table. */
    public OutboxTable table() {
        return table;
    }

    /** This test's exchange and the queue bound to it. */
    public RabbitMqDestination destination() {
        return destination;
    }

    /** What reached this test's queue. */
    public BrokerInbox inbox() {
        return inbox;
    }
}
