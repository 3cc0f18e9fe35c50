package dev.outboxjava.testkit;

import dev.outboxjava.core.RetryPolicy;
import dev.outboxjava.core.memory.InMemoryOutboxStore;
import dev.outboxjava.core.port.OutboxStore;
import dev.outboxjava.core.relay.Relay;
import dev.outboxjava.core.relay.RelayConfig;
import dev.outboxjava.core.relay.RelayListener;
import dev.outboxjava.core.relay.Sweeper;
import dev.outboxjava.core.relay.SweeperConfig;
import dev.outboxjava.core.time.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Hands a test the outbox's fakes as parameters, fresh for each test method and shared by every
 * parameter of that test (and its {@code @BeforeEach}/{@code @AfterEach} methods):
 *
 * <ul>
 *   <li>{@link ManualClock} — starts at {@link #CLOCK_START}; moves only when the test advances it</li>
 *   <li>{@link InMemoryOutboxStore} (also as {@link OutboxStore}) — empty, keeps sent events</li>
 *   <li>{@link RecordingPublisher} — the "broker": records what was published</li>
 *   <li>{@link FaultyPublisher} — wraps that recording publisher, no faults until scripted</li>
 *   <li>{@link Relay} — over the store and the FAULTY publisher (so scripted faults reach it), the manual
 *       clock, a batch of {@value RelayConfig#DEFAULT_BATCH_SIZE}, a publish timeout of
 *       {@link #PUBLISH_TIMEOUT}, a retry policy of 1 s doubling without jitter, and no retry of a
 *       failed mark (a store made unavailable fails the tick at once, as a crashed relay would, instead
 *       of the test waiting out {@link RelayConfig#markRetryTimeout()} in real time)</li>
 *   <li>{@link Sweeper} — over the store and the manual clock, with the default settings
 *       (lease timeout {@link SweeperConfig#DEFAULT_LEASE_TIMEOUT})</li>
 * </ul>
 *
 * <pre>{@code
 * @ExtendWith(OutboxExtension.class)
 * class OrderServiceTest {
 *     @Test
 *     void placingAnOrderPublishesOrderPlaced(InMemoryOutboxStore store, Relay relay, RecordingPublisher published) {
 *         new OrderService(store).placeOrder("order-7");
 *         relay.runOnce();
 *         OutboxAssertions.awaitPublished(published, EventFilter.ofType("order.placed").withKey("order-7"));
 *     }
 * }
 * }</pre>
 *
 * Parameters of a {@code @BeforeAll} method or a constructor live as long as the test class instead.
 */
public final class OutboxExtension implements ParameterResolver {

    /** Where the {@link ManualClock} starts: 2024-01-01T00:00:00Z. */
    public static final Instant CLOCK_START = Instant.parse("2024-01-01T00:00:00Z");
    /** The publish timeout of the supplied {@link Relay}: 2 seconds. */
    public static final Duration PUBLISH_TIMEOUT = Duration.ofSeconds(2);

    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(OutboxExtension.class);
    private static final Set<Class<?>> SUPPORTED = Set.of(
            ManualClock.class,
            InMemoryOutboxStore.class,
            OutboxStore.class,
            RecordingPublisher.class,
            FaultyPublisher.class,
            Relay.class,
            Sweeper.class);

    /** Used by JUnit through {@code @ExtendWith(OutboxExtension.class)}. */
    public OutboxExtension() {}

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return SUPPORTED.contains(parameter.getParameter().getType());
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        Fakes fakes = context.getStore(NAMESPACE).getOrComputeIfAbsent(Fakes.class, type -> new Fakes(), Fakes.class);
        Class<?> type = parameter.getParameter().getType();
        if (type == ManualClock.class) {
            return fakes.clock;
        } else if (type == InMemoryOutboxStore.class || type == OutboxStore.class) {
            return fakes.store;
        } else if (type == RecordingPublisher.class) {
            return fakes.recording;
        } else if (type == FaultyPublisher.class) {
            return fakes.faulty;
        } else if (type == Relay.class) {
            return fakes.relay;
        }
        return fakes.sweeper;
    }

    /** One test's set of fakes, wired together. */
    private static final class Fakes implements ExtensionContext.Store.CloseableResource, AutoCloseable {
        final ManualClock clock = new ManualClock(CLOCK_START);
        final InMemoryOutboxStore store = new InMemoryOutboxStore();
        final RecordingPublisher recording = new RecordingPublisher();
        final FaultyPublisher faulty = FaultyPublisher.wrapping(recording);
        final Relay relay = new Relay(
                store,
                faulty,
                new RelayConfig(RelayConfig.DEFAULT_BATCH_SIZE, PUBLISH_TIMEOUT).withMarkRetryTimeout(Duration.ZERO),
                RetryPolicy.builder()
                        .initialDelay(Duration.ofSeconds(1))
                        .multiplier(2)
                        .jitter(0)
                        .build(),
                clock,
                RelayListener.NONE);
        final Sweeper sweeper = new Sweeper(store, SweeperConfig.ofDefaults(), clock);

        /** Releases publishes a test left hanging, so no future outlives its test. */
        @Override
        public void close() {
            faulty.close();
        }
    }
}
