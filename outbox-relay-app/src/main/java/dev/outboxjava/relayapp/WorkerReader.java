package dev.outboxjava.relayapp;

import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.RetryPolicy;
import dev.outboxjava.core.relay.CleanerConfig;
import dev.outboxjava.core.relay.RelayConfig;
import dev.outboxjava.core.relay.SweeperConfig;
import dev.outboxjava.worker.InvalidSettingsException;
import dev.outboxjava.worker.OutboxWorkerConfig;
import java.time.Duration;
import java.util.Map;
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
            reader.problems(e.problems().stream().map(WorkerReader::inOurTerms).toList());
            return OutboxWorkerConfig.ofDefaults();
        }
    }

    /**
     * The builder's names of the values read here ({@code OutboxWorkerConfig.builder().relayThreads(...)}),
     * with the key each comes from; the builder's problems are told in these keys.
     */
    private static final Map<String, ConfigKey> BUILDER_SETTINGS = Map.ofEntries(
            Map.entry(OutboxWorkerConfig.setting("relayThreads"), ConfigKey.RELAY_THREADS),
            Map.entry(OutboxWorkerConfig.setting("pollInterval"), ConfigKey.RELAY_POLL_INTERVAL),
            Map.entry(OutboxWorkerConfig.setting("relay") + ".publishTimeout()", ConfigKey.RELAY_PUBLISH_TIMEOUT),
            Map.entry(OutboxWorkerConfig.setting("relay") + ".ordering()", ConfigKey.ORDERING),
            Map.entry(OutboxWorkerConfig.setting("sweeper") + ".leaseTimeout()", ConfigKey.SWEEPER_LEASE_TIMEOUT),
            Map.entry(OutboxWorkerConfig.setting("sweepInterval"), ConfigKey.SWEEPER_INTERVAL),
            Map.entry(OutboxWorkerConfig.setting("cleanInterval"), ConfigKey.CLEANER_INTERVAL),
            Map.entry(OutboxWorkerConfig.setting("backoffInitial"), ConfigKey.BACKOFF_INITIAL),
            Map.entry(OutboxWorkerConfig.setting("backoffMax"), ConfigKey.BACKOFF_MAX),
            Map.entry(OutboxWorkerConfig.setting("shutdownTimeout"), ConfigKey.SHUTDOWN_TIMEOUT),
            Map.entry(OutboxWorkerConfig.setting("metricsPollInterval"), ConfigKey.METRICS_POLL_INTERVAL),
            Map.entry(OutboxWorkerConfig.setting("logSummaryInterval"), ConfigKey.LOG_SUMMARY_INTERVAL),
            Map.entry(OutboxWorkerConfig.setting("maxBrokerOutage"), ConfigKey.HEALTH_MAX_BROKER_OUTAGE));

    /** A problem of the builder, told in this application's keys: the operator sets keys, not builder methods. */
    static InvalidSettingsException.Problem inOurTerms(InvalidSettingsException.Problem problem) {
        ConfigKey key = BUILDER_SETTINGS.get(problem.key());
        String reason = problem.reason();
        for (Map.Entry<String, ConfigKey> setting : BUILDER_SETTINGS.entrySet()) {
            reason = reason.replace(setting.getKey(), setting.getValue().property());
        }
        return new InvalidSettingsException.Problem(key != null ? key.displayName() : problem.key(), reason);
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
