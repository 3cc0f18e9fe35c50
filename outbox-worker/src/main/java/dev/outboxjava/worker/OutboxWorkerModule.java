package dev.outboxjava.worker;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import com.google.inject.multibindings.Multibinder;
import com.google.inject.multibindings.OptionalBinder;
import dev.outboxjava.core.port.OutboxStore;
import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.core.relay.RelayListener;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.util.Objects;
import java.util.Set;

/**
 * The outbox loops and their configuration. Install it with ONE store module (e.g.
 * {@link PostgresStoreModule}) and ONE publisher module ({@link KafkaPublisherModule} or
 * {@link RabbitMqPublisherModule}); then take {@link OutboxWorker} from the injector and
 * {@link OutboxWorker#start() start} it.
 *
 * <pre>{@code
 * Injector injector = Guice.createInjector(
 *         new OutboxWorkerModule(OutboxWorkerConfig.ofDefaults()),
 *         new PostgresStoreModule(dataSource, PostgresOutboxConfig.ofDefaults()),
 *         new KafkaPublisherModule(KafkaPublisherConfig.builder().bootstrapServers("kafka:9092").build()));
 * OutboxWorker worker = injector.getInstance(OutboxWorker.class);
 * worker.start();
 * }</pre>
 *
 * <p>{@code dataSource} is the application's own; the worker builds no connection pool.
 *
 * <p>Needs bindings for {@link OutboxStore} and {@link Publisher}. Optional bindings with defaults
 * you may replace through {@code OptionalBinder}: {@link Clock} (system UTC), {@link MeterRegistry}
 * (a {@link SimpleMeterRegistry}; bind the application's registry) and an extra {@link RelayListener} (none); more
 * {@link ReadinessCheck}s through a {@code Multibinder} (e.g. {@code DatabaseHealthModule}). Provides
 * {@link OutboxWorker} (singleton) and {@link OutboxWakeUp}. Wiring only.
 */
public final class OutboxWorkerModule extends AbstractModule {

    private final OutboxWorkerConfig config;

    /** With the given loop configuration. */
    public OutboxWorkerModule(OutboxWorkerConfig config) {
        this.config = Objects.requireNonNull(config, "config");
    }

    @Override
    protected void configure() {
        bind(OutboxWorkerConfig.class).toInstance(config);
        OptionalBinder.newOptionalBinder(binder(), Clock.class).setDefault().toInstance(Clock.systemUTC());
        OptionalBinder.newOptionalBinder(binder(), MeterRegistry.class)
                .setDefault()
                .toInstance(new SimpleMeterRegistry());
        OptionalBinder.newOptionalBinder(binder(), RelayListener.class)
                .setDefault()
                .toInstance(RelayListener.NONE);
        Multibinder.newSetBinder(binder(), WakeUpSource.class);
        Multibinder.newSetBinder(binder(), ReadinessCheck.class);
        Multibinder.newSetBinder(binder(), AutoCloseable.class, WorkerResource.class);
    }

    @Provides
    @Singleton
    OutboxWorker worker(
            OutboxStore store,
            Publisher publisher,
            OutboxWorkerConfig workerConfig,
            Clock clock,
            MeterRegistry registry,
            RelayListener listener,
            Set<WakeUpSource> wakeUpSources,
            @WorkerResource Set<AutoCloseable> resources,
            Set<ReadinessCheck> readinessChecks) {
        return OutboxWorker.builder()
                .store(store)
                .publisher(publisher)
                .config(workerConfig)
                .clock(clock)
                .meterRegistry(registry)
                .relayListener(listener)
                .wakeUpSources(wakeUpSources)
                .closeOnShutdown(resources)
                .readinessChecks(readinessChecks)
                .build();
    }

    @Provides
    OutboxWakeUp wakeUp(OutboxWorker worker) {
        return worker.wakeUp();
    }
}
