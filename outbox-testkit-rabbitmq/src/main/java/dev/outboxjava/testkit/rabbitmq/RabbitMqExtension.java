package dev.outboxjava.testkit.rabbitmq;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gives a test class a RabbitMQ-compatible broker ({@link RabbitMqFixture}, found or started once per
 * test run and stopped at its end) and deletes the destinations the class made after the class.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final RabbitMqExtension rabbit = new RabbitMqExtension();
 *
 * @Test
 * void something() {
 *     RabbitMqDestination orders = rabbit.newDestination("orders");
 *     String uri = rabbit.fixture().uri();
 * }
 * }</pre>
 *
 * Register it as a {@code static} field, so it sees the whole class.
 */
public final class RabbitMqExtension implements BeforeAllCallback, AfterAllCallback {

    private static final Logger log = LoggerFactory.getLogger(RabbitMqExtension.class);
    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(RabbitMqExtension.class);

    private final List<RabbitMqDestination> destinations = new CopyOnWriteArrayList<>();
    private volatile RabbitMqFixture fixture;

    /** An extension for {@code @RegisterExtension}. */
    public RabbitMqExtension() {}

    @Override
    public void beforeAll(ExtensionContext context) {
        fixture = context.getRoot()
                .getStore(NAMESPACE)
                .getOrComputeIfAbsent(
                        SharedFixture.class, type -> new SharedFixture(RabbitMqFixture.start()), SharedFixture.class)
                .fixture;
    }

    @Override
    public void afterAll(ExtensionContext context) {
        for (RabbitMqDestination destination : destinations) {
            try {
                fixture.delete(destination);
            } catch (RuntimeException e) {
                log.warn("could not delete test destination {}: {}", destination, e.toString());
            }
        }
        destinations.clear();
    }

    /** The broker, shared by every class of the test run. */
    public RabbitMqFixture fixture() {
        RabbitMqFixture started = fixture;
        if (started == null) {
            throw new IllegalStateException(
                    "RabbitMqExtension is not started: register it as a static field with " + "@RegisterExtension");
        }
        return started;
    }

    /**
     * A fresh topic exchange bound to a queue of its own (see {@link RabbitMqFixture#createDestination}),
     * deleted after the test class.
     */
    public RabbitMqDestination newDestination(String prefix) {
        Objects.requireNonNull(prefix, "prefix");
        RabbitMqDestination destination = fixture().createDestination(prefix);
        destinations.add(destination);
        return destination;
    }

    /** Closes the run's fixture when JUnit closes the root context. */
    private record SharedFixture(RabbitMqFixture fixture)
            implements ExtensionContext.Store.CloseableResource, AutoCloseable {
        @Override
        public void close() {
            fixture.close();
        }
    }
}
