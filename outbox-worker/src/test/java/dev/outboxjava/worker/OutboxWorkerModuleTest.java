package dev.outboxjava.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.inject.AbstractModule;
import com.google.inject.CreationException;
import com.google.inject.Guice;
import com.google.inject.Injector;
import com.google.inject.Key;
import com.google.inject.ProvisionException;
import com.google.inject.TypeLiteral;
import com.google.inject.multibindings.Multibinder;
import com.google.inject.multibindings.OptionalBinder;
import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.memory.InMemoryOutboxStore;
import dev.outboxjava.core.port.OutboxStore;
import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.WakeUpMode;
import dev.outboxjava.testkit.RecordingPublisher;
import dev.outboxjava.worker.internal.InProcessWakeUp;
import dev.outboxjava.worker.internal.PostgresNotifyWakeUp;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.postgresql.ds.PGSimpleDataSource;

@DisplayName("The Guice modules")
class OutboxWorkerModuleTest {

    private final InMemoryOutboxStore store = new InMemoryOutboxStore();
    private final RecordingPublisher publisher = new RecordingPublisher();

    private AbstractModule adapters() {
        return new AbstractModule() {
            @Override
            protected void configure() {
                bind(OutboxStore.class).toInstance(store);
                bind(Publisher.class).toInstance(publisher);
            }
        };
    }

    @Test
    void givenTheWorkerModuleAndAdapterBindings_thenTheInjectorGivesARunnableSingletonWorker() {
        Injector injector = Guice.createInjector(new OutboxWorkerModule(OutboxWorkerConfig.ofDefaults()), adapters());
        OutboxWorker worker = injector.getInstance(OutboxWorker.class);
        store.append(OutboxEvent.builder()
                .type("t")
                .destination("d")
                .payload(new byte[0])
                .build());

        try (worker) {
            worker.start();
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> store.countByStatus().get(EventStatus.SENT) == 1);
        }

        assertThat(injector.getInstance(OutboxWorker.class)).isSameAs(worker);
        assertThat(injector.getInstance(OutboxWakeUp.class)).isSameAs(worker.wakeUp());
        assertThat(publisher.isClosed()).isTrue();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(WakeUpMode.class)
    @DisplayName("the PostgreSQL store module adds the wake-up of the store's mode: a LISTEN in both NOTIFY modes, "
            + "in-process signals expected, or nothing to listen to or expect")
    void givenTheStoresWakeUpMode_thenTheRelayGetsThatWakeUp(WakeUpMode mode) {
        Injector injector = Guice.createInjector(
                new OutboxWorkerModule(OutboxWorkerConfig.ofDefaults()),
                new PostgresStoreModule(
                        new PGSimpleDataSource(),
                        PostgresOutboxConfig.builder().wakeUpMode(mode).build()),
                new AbstractModule() {
                    @Override
                    protected void configure() {
                        bind(Publisher.class).toInstance(publisher);
                    }
                });

        Set<WakeUpSource> sources = injector.getInstance(Key.get(new TypeLiteral<Set<WakeUpSource>>() {}));

        WakeUpSource source = sources.iterator().next();
        assertThat(sources).hasSize(1);
        if (mode.listens()) {
            assertThat(source).isInstanceOf(PostgresNotifyWakeUp.class);
        } else if (mode == WakeUpMode.IN_PROCESS) {
            assertThat(source).isInstanceOf(InProcessWakeUp.class);
        } else {
            assertThat(source).isNotInstanceOfAny(PostgresNotifyWakeUp.class, InProcessWakeUp.class);
            assertThat(source.expects()).as("a mode that expects nothing").isEmpty();
        }
        assertThat(injector.getInstance(PostgresOutboxConfig.class).wakeUpMode())
                .isEqualTo(mode);
    }

    @Test
    void givenNoStoreModule_thenTheInjectorSaysWhatIsMissing() {
        assertThatThrownBy(() -> Guice.createInjector(new OutboxWorkerModule(OutboxWorkerConfig.ofDefaults()))
                        .getInstance(OutboxWorker.class))
                .isInstanceOfAny(
                        CreationException.class,
                        ProvisionException.class,
                        com.google.inject.ConfigurationException.class)
                .hasMessageContaining("OutboxStore");
    }

    @Test
    void givenOverridesThroughOptionalBinder_andAWakeUpSource_thenTheWorkerUsesThem() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        AtomicInteger started = new AtomicInteger();
        AtomicInteger closed = new AtomicInteger();
        Injector injector = Guice.createInjector(
                new OutboxWorkerModule(OutboxWorkerConfig.ofDefaults()), adapters(), new AbstractModule() {
                    @Override
                    protected void configure() {
                        OptionalBinder.newOptionalBinder(binder(), MeterRegistry.class)
                                .setBinding()
                                .toInstance(registry);
                        Multibinder.newSetBinder(binder(), WakeUpSource.class)
                                .addBinding()
                                .toInstance(wakeUp -> {
                                    started.incrementAndGet();
                                    return closed::incrementAndGet;
                                });
                    }
                });

        try (OutboxWorker worker = injector.getInstance(OutboxWorker.class)) {
            worker.start();
            assertThat(worker.meterRegistry()).isSameAs(registry);
            assertThat(registry.find("outbox.events.published").counter()).isNotNull();
            assertThat(started).hasValue(1);
        }
        assertThat(closed).hasValue(1);
    }
}
