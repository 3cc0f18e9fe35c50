package dev.outboxjava.relayapp;

import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.RetryPolicy;
import dev.outboxjava.core.relay.CleanerConfig;
import dev.outboxjava.core.relay.RelayConfig;
import dev.outboxjava.core.relay.SweeperConfig;
import dev.outboxjava.worker.ConfigKey;
import dev.outboxjava.worker.InvalidSettingsException;
import dev.outboxjava.worker.OutboxWorkerConfig;
import java.time.Duration;
import java.util.Optional;

/**
 * Reads the loops' keys ({@code outbox.relay.*}, {@code outbox.ordering*}, {@code outbox.retry.*},
 * {@code outbox.sweeper.*}, {@code outbox.cleaner.*}, backoff, shutdown, metrics and log intervals)
 * into an {@link OutboxWorkerConfig}, one section at a time.
 */
final class WorkerReader {

    private WorkerReader() {}

    static OutboxWorkerConfig read(ConfigReader reader) {
        OutboxWorkerConfig.Builder builder = OutboxWorkerConfig.builder()
                .relay(relay(reader))
                .relayThreads(reader.integer(ConfigKey.RELAY_THREADS, 1, OutboxWorkerConfig.MAX_RELAY_THREADS))
                .pollInterval(reader.duration(ConfigKey.RELAY_POLL_INTERVAL))
                .retryPolicy(retry(reader))
                .sweeper(sweeper(reader))
                .sweepInterval(reader.duration(ConfigKey.SWEEPER_INTERVAL))
                .cleanerEnabled(reader.bool(ConfigKey.CLEANER_ENABLED))
                .cleaner(cleaner(reader))
                .cleanInterval(reader.duration(ConfigKey.CLEANER_INTERVAL))
                .backoffInitial(reader.duration(ConfigKey.BACKOFF_INITIAL))
                .backoffMax(reader.duration(ConfigKey.BACKOFF_MAX))
                .shutdownTimeout(reader.duration(ConfigKey.SHUTDOWN_TIMEOUT))
                .metricsPollInterval(reader.duration(ConfigKey.METRICS_POLL_INTERVAL))
                .logSummaryInterval(reader.duration(ConfigKey.LOG_SUMMARY_INTERVAL))
                .maxBrokerOutage(reader.duration(ConfigKey.HEALTH_MAX_BROKER_OUTAGE));
        try {
            return builder.build();
        } catch (InvalidSettingsException e) {
            reader.problems(e.problems());
            return OutboxWorkerConfig.ofDefaults();
        }
    }

    private static RelayConfig relay(ConfigReader reader) {
        Ordering ordering = ordering(reader);
        int batchSize = reader.integer(
                ConfigKey.RELAY_BATCH_SIZE, 1, RelayConfig.MAX_BATCH_SIZE, RelayConfig.defaultBatchSize(ordering));
        Duration publishTimeout = reader.duration(ConfigKey.RELAY_PUBLISH_TIMEOUT);
        return reader.build(
                ConfigKey.RELAY_PUBLISH_TIMEOUT,
                () -> new RelayConfig(batchSize, publishTimeout, ordering),
                RelayConfig.ofDefaults());
    }

    private static Ordering ordering(ConfigReader reader) {
        Ordering.Mode mode = reader.choice(
                ConfigKey.ORDERING,
                Ordering.Mode.NONE,
                value -> switch (value) {
                    case "none" -> Optional.of(Ordering.Mode.NONE);
                    case "per_key" -> Optional.of(Ordering.Mode.PER_KEY);
                    default -> Optional.empty();
                },
                "none, per_key");
        Ordering.AfterDeadLetter afterDeadLetter = reader.choice(
                ConfigKey.AFTER_DEAD_LETTER,
                Ordering.AfterDeadLetter.HOLD_KEY,
                value -> switch (value) {
                    case "hold_key" -> Optional.of(Ordering.AfterDeadLetter.HOLD_KEY);
                    case "continue" -> Optional.of(Ordering.AfterDeadLetter.CONTINUE);
                    default -> Optional.empty();
                },
                "hold_key, continue");
        return new Ordering(mode, afterDeadLetter);
    }

    private static RetryPolicy retry(ConfigReader reader) {
        Duration initialDelay = reader.duration(ConfigKey.RETRY_INITIAL_DELAY);
        double multiplier = reader.decimal(ConfigKey.RETRY_MULTIPLIER);
        Duration maxDelay = reader.duration(ConfigKey.RETRY_MAX_DELAY);
        double jitter = reader.decimal(ConfigKey.RETRY_JITTER);
        int unroutableMaxAttempts = reader.integer(ConfigKey.RETRY_UNROUTABLE_MAX_ATTEMPTS, 1, 1000);
        return reader.build(
                ConfigKey.RETRY_INITIAL_DELAY,
                () -> RetryPolicy.builder()
                        .initialDelay(initialDelay)
                        .multiplier(multiplier)
                        .maxDelay(maxDelay)
                        .jitter(jitter)
                        .unroutableMaxAttempts(unroutableMaxAttempts)
                        .build(),
                RetryPolicy.ofDefaults());
    }

    private static SweeperConfig sweeper(ConfigReader reader) {
        Duration leaseTimeout = reader.duration(ConfigKey.SWEEPER_LEASE_TIMEOUT);
        int chunkSize = reader.integer(ConfigKey.SWEEPER_CHUNK_SIZE, 1, 100_000);
        return reader.build(
                ConfigKey.SWEEPER_LEASE_TIMEOUT,
                () -> new SweeperConfig(leaseTimeout, chunkSize, SweeperConfig.DEFAULT_MAX_CHUNKS_PER_TICK),
                SweeperConfig.ofDefaults());
    }

    private static CleanerConfig cleaner(ConfigReader reader) {
        Duration retention = reader.duration(ConfigKey.CLEANER_RETENTION);
        int chunkSize = reader.integer(ConfigKey.CLEANER_CHUNK_SIZE, 1, 100_000);
        return reader.build(
                ConfigKey.CLEANER_RETENTION,
                () -> new CleanerConfig(retention, chunkSize, CleanerConfig.DEFAULT_MAX_CHUNKS_PER_TICK),
                CleanerConfig.ofDefaults());
    }
}
