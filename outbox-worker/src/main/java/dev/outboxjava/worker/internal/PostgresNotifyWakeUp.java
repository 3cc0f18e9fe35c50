package dev.outboxjava.worker.internal;

import com.zaxxer.hikari.HikariDataSource;
import dev.outboxjava.postgres.OutboxNotificationListener;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.worker.OutboxWakeUp;
import dev.outboxjava.worker.WakeUpSource;
import jakarta.inject.Inject;
import java.util.Objects;

/** Wakes the relay on the outbox table's NOTIFY, through the store module's {@link OutboxNotificationListener}. */
public final class PostgresNotifyWakeUp implements WakeUpSource {

    private final HikariDataSource dataSource;
    private final PostgresOutboxConfig config;

    @Inject
    public PostgresNotifyWakeUp(HikariDataSource dataSource, PostgresOutboxConfig config) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.config = Objects.requireNonNull(config, "config");
    }

    @Override
    public AutoCloseable start(OutboxWakeUp wakeUp) {
        return OutboxNotificationListener.builder(dataSource, config.notifyChannel(), wakeUp::signal).start();
    }
}
