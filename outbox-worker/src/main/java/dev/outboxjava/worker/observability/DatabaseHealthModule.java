package dev.outboxjava.worker.observability;

import com.google.inject.AbstractModule;
import com.google.inject.Provides;
import com.google.inject.Singleton;
import com.google.inject.multibindings.Multibinder;
import dev.outboxjava.core.port.OutboxStore;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.postgres.health.PostgresHealthProbe;
import dev.outboxjava.worker.HealthConfig;
import dev.outboxjava.worker.OutboxWorkerConfig;
import dev.outboxjava.worker.ReadinessCheck;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.Objects;

/**
 * Adds the database health signals to a worker assembled with {@code OutboxWorkerModule} and
 * {@code PostgresStoreModule}: a {@link DatabaseHealthMonitor} (gauges refreshed every
 * {@code outbox.metrics.poll.interval}) that is also a {@link ReadinessCheck}. Wiring only.
 */
public final class DatabaseHealthModule extends AbstractModule {

    private final HealthConfig health;

    /** With the given thresholds and inbox table. */
    public DatabaseHealthModule(HealthConfig health) {
        this.health = Objects.requireNonNull(health, "health");
    }

    @Override
    protected void configure() {
        Multibinder.newSetBinder(binder(), ReadinessCheck.class).addBinding().to(DatabaseHealthMonitor.class);
    }

    @Provides
    @Singleton
    DatabaseHealthMonitor monitor(
            OutboxStore store,
            PostgresOutboxStore postgres,
            Clock clock,
            MeterRegistry registry,
            OutboxWorkerConfig worker) {
        PostgresHealthProbe probe = PostgresHealthProbe.create(
                postgres.dataSource(),
                postgres.config().tableName(),
                postgres.config().layout(),
                health.inboxTable());
        return new DatabaseHealthMonitor(store, probe, health, clock, registry, worker.metricsPollInterval());
    }
}
