package dev.outboxjava.relayapp;

import dev.outboxjava.core.InvalidConfigurationException;
import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.RetryPolicy;
import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.core.relay.CleanerSettings;
import dev.outboxjava.core.relay.RelaySettings;
import dev.outboxjava.core.relay.SweeperSettings;
import dev.outboxjava.kafka.KafkaPublisherConfig;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.WakeUpMode;
import dev.outboxjava.postgres.StoreLayout;
import dev.outboxjava.rabbitmq.RabbitMqPublisherConfig;
import dev.outboxjava.relayapp.internal.Secrets;
import dev.outboxjava.worker.ConfigKey;
import dev.outboxjava.worker.ConnectionBudget;
import dev.outboxjava.worker.Durations;
import dev.outboxjava.worker.HealthConfig;
import dev.outboxjava.worker.InvalidSettingsException;
import dev.outboxjava.worker.OutboxWorkerConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * Every setting of the standalone worker and the command line, read from a {@link ConfigSource}
 * through the {@link ConfigKey} table and turned into typed objects per component.
 *
 * <p>{@link #load(ConfigSource)} reads all keys, collects every problem (unknown keys, values that
 * do not parse, values out of range, cross-checks) and throws ONE {@link InvalidSettingsException}
 * listing them. Whether the database and broker are required depends on the command, so those are
 * checked by {@link #requireDatabase()} and {@link #requireBroker()}.
 */
public final class OutboxSettings {

    private static final String DATABASE_HINT = "the database of the outbox table, e.g. "
            + "jdbc:postgresql://127.0.0.1:5432/app";
    private static final String BROKER_HINT = "which broker to publish to: kafka or rabbitmq";

    private final Optional<DatabaseConfig> database;
    private final Optional<BrokerConfig> broker;
    private final OutboxWorkerConfig worker;
    private final HttpConfig http;
    private final WakeUpMode wakeUp;
    private final String table;
    private final String logLevel;
    private final HealthConfig health;
    private final StoreLayout layout;

    private OutboxSettings(Optional<DatabaseConfig> database, Optional<BrokerConfig> broker, OutboxWorkerConfig worker,
            HttpConfig http, WakeUpMode wakeUp, String table, String logLevel, HealthConfig health,
            StoreLayout layout) {
        this.database = database;
        this.broker = broker;
        this.worker = worker;
        this.http = http;
        this.wakeUp = wakeUp;
        this.table = table;
        this.logLevel = logLevel;
        this.health = health;
        this.layout = layout;
    }

    /** The settings from the environment variables of this process. */
    public static OutboxSettings fromEnvironment() {
        return load(ConfigSource.environment());
    }

    /**
     * Reads and checks every key.
     *
     * @throws InvalidSettingsException listing every problem, each naming its key
     */
    public static OutboxSettings load(ConfigSource source) {
        return load(source, new Requirement[0]);
    }

    /** What a command cannot do without; missing ones are reported with every other problem. */
    public enum Requirement {
        /** {@code outbox.db.url}. */
        DATABASE,
        /** {@code outbox.broker}. */
        BROKER
    }

    /**
     * Reads and checks every key, and that the {@code required} settings are present, so that one run
     * reports everything missing or wrong.
     *
     * @throws InvalidSettingsException listing every problem, each naming its key
     */
    public static OutboxSettings load(ConfigSource source, Requirement... required) {
        Reader reader = new Reader(source);
        source.unknownKeys().forEach(unknown -> reader.problems.add(new InvalidSettingsException.Problem(unknown,
                "unknown setting; known keys are listed by 'outbox-worker keys' and in docs/configuration.md (typo?)")));

        String url = reader.string(ConfigKey.DB_URL);
        String user = reader.string(ConfigKey.DB_USER);
        String password = reader.string(ConfigKey.DB_PASSWORD);
        int poolSize = reader.integer(ConfigKey.DB_POOL_SIZE, 1, 100);
        String table = reader.string(ConfigKey.TABLE);
        try {
            PostgresOutboxConfig.builder().tableName(table).build();
        } catch (InvalidConfigurationException e) {
            reader.problem(ConfigKey.TABLE, e.getMessage().replaceFirst("^invalid outbox setting '[^']*': ", ""));
        }
        CompletionMode completionMode = reader.choice(ConfigKey.COMPLETION_MODE, CompletionMode.KEEP_SENT,
                value -> switch (value) {
                    case "keep_sent" -> Optional.of(CompletionMode.KEEP_SENT);
                    case "delete_on_publish" -> Optional.of(CompletionMode.DELETE_ON_PUBLISH);
                    default -> Optional.empty();
                }, "keep_sent, delete_on_publish");
        StoreLayout layout = reader.choice(ConfigKey.STORE_LAYOUT, StoreLayout.IN_PLACE, value -> switch (value) {
            case "in_place" -> Optional.of(StoreLayout.IN_PLACE);
            case "append_log" -> Optional.of(StoreLayout.APPEND_LOG);
            default -> Optional.empty();
        }, "in_place, append_log");
        if (!url.isEmpty() && !url.startsWith("jdbc:postgresql:")) {
            reader.problem(ConfigKey.DB_URL, "must be a PostgreSQL JDBC URL starting with jdbc:postgresql:, was '"
                    + Secrets.maskText(url) + "'");
        }
        Optional<DatabaseConfig> database = url.isEmpty() ? Optional.empty()
                : Optional.of(new DatabaseConfig(url, user, password, poolSize, table, completionMode, layout));

        Optional<BrokerKind> brokerKind = reader.optionalChoice(ConfigKey.BROKER, BrokerKind::parse, "kafka, rabbitmq");
        String bootstrap = reader.string(ConfigKey.KAFKA_BOOTSTRAP_SERVERS);
        String clientId = reader.string(ConfigKey.KAFKA_CLIENT_ID);
        String rabbitUri = reader.string(ConfigKey.RABBITMQ_URI);
        String connectionName = reader.string(ConfigKey.RABBITMQ_CONNECTION_NAME);
        if (brokerKind.orElse(null) == BrokerKind.KAFKA && bootstrap.isEmpty()) {
            reader.problem(ConfigKey.KAFKA_BOOTSTRAP_SERVERS, "is required when " + ConfigKey.BROKER.property()
                    + "=kafka (host:port[,host:port])");
        }
        if (brokerKind.orElse(null) == BrokerKind.RABBITMQ && !rabbitUri.matches("(?i)amqps?://.*")) {
            reader.problem(ConfigKey.RABBITMQ_URI, "must start with amqp:// or amqps://, was '"
                    + Secrets.maskText(rabbitUri) + "'");
        }
        Map<String, String> kafkaProperties = source.passThrough(ConfigKey.KAFKA_PROPERTY_PREFIX);
        Map<String, String> rabbitProperties = source.passThrough(ConfigKey.RABBITMQ_PROPERTY_PREFIX);
        if (brokerKind.orElse(null) == BrokerKind.KAFKA) {
            kafkaProperties.keySet().stream().filter(name -> !ProducerConfig.configNames().contains(name))
                    .forEach(name -> reader.passThroughProblem(ConfigKey.KAFKA_PROPERTY_PREFIX, name,
                            "is not a Kafka producer property (typo?); every producer property may be set as "
                                    + ConfigKey.KAFKA_PROPERTY_PREFIX + "<property>"));
        }
        if (brokerKind.orElse(null) == BrokerKind.KAFKA && !bootstrap.isEmpty()) {
            try {
                KafkaPublisherConfig.builder().properties(kafkaProperties).bootstrapServers(bootstrap)
                        .property("client.id", clientId).build();
            } catch (InvalidConfigurationException e) {
                String setting = e.setting();
                String reason = Secrets.maskText(e.getMessage().replaceFirst("^invalid outbox setting '[^']*': ", ""),
                        Secrets.isSecretName(setting) ? kafkaProperties.get(setting) : null);
                if (setting.equals("bootstrap.servers")) {
                    reader.problem(ConfigKey.KAFKA_BOOTSTRAP_SERVERS, reason);
                } else if (setting.equals("client.id")) {
                    reader.problem(ConfigKey.KAFKA_CLIENT_ID, reason);
                } else {
                    reader.passThroughProblem(ConfigKey.KAFKA_PROPERTY_PREFIX, setting, reason);
                }
            }
        }
        if (brokerKind.orElse(null) == BrokerKind.RABBITMQ && rabbitUri.matches("(?i)amqps?://.*")) {
            try {
                RabbitMqPublisherConfig.custom().uri(rabbitUri).connectionName(connectionName)
                        .properties(rabbitProperties).build();
            } catch (InvalidConfigurationException e) {
                String setting = e.setting().replaceFirst("^rabbitmq\\.", "");
                String reason = Secrets.maskText(e.getMessage().replaceFirst("^invalid outbox setting '[^']*': ", ""));
                if (setting.equals("uri")) {
                    reader.problem(ConfigKey.RABBITMQ_URI, reason);
                } else if (setting.equals("connectionName")) {
                    reader.problem(ConfigKey.RABBITMQ_CONNECTION_NAME, reason);
                } else if (rabbitProperties.containsKey(setting) || setting.equals("ssl")) {
                    reader.passThroughProblem(ConfigKey.RABBITMQ_PROPERTY_PREFIX, setting.equals("ssl") ? "ssl.*"
                            : setting, reason);
                } else {
                    reader.problem(ConfigKey.RABBITMQ_URI, reason);
                }
            }
        }
        Optional<BrokerConfig> broker = brokerKind.map(kind -> new BrokerConfig(kind, bootstrap, clientId, rabbitUri,
                connectionName, kafkaProperties, rabbitProperties));

        int batchSize = reader.integer(ConfigKey.RELAY_BATCH_SIZE, 1, RelaySettings.MAX_BATCH_SIZE);
        Duration publishTimeout = reader.duration(ConfigKey.RELAY_PUBLISH_TIMEOUT);
        Ordering.Mode orderingMode = reader.choice(ConfigKey.ORDERING, Ordering.Mode.NONE, value -> switch (value) {
            case "none" -> Optional.of(Ordering.Mode.NONE);
            case "per_key" -> Optional.of(Ordering.Mode.PER_KEY);
            default -> Optional.empty();
        }, "none, per_key");
        Ordering.AfterDeadLetter afterDeadLetter = reader.choice(ConfigKey.AFTER_DEAD_LETTER,
                Ordering.AfterDeadLetter.HOLD_KEY, value -> switch (value) {
                    case "hold_key" -> Optional.of(Ordering.AfterDeadLetter.HOLD_KEY);
                    case "continue" -> Optional.of(Ordering.AfterDeadLetter.CONTINUE);
                    default -> Optional.empty();
                }, "hold_key, continue");
        Ordering ordering = new Ordering(orderingMode, afterDeadLetter);
        RelaySettings relay = reader.build(ConfigKey.RELAY_PUBLISH_TIMEOUT,
                () -> new RelaySettings(batchSize, publishTimeout, ordering), RelaySettings.ofDefaults());
        Duration initialDelay = reader.duration(ConfigKey.RETRY_INITIAL_DELAY);
        double multiplier = reader.decimal(ConfigKey.RETRY_MULTIPLIER);
        Duration maxDelay = reader.duration(ConfigKey.RETRY_MAX_DELAY);
        double jitter = reader.decimal(ConfigKey.RETRY_JITTER);
        int unroutableMaxAttempts = reader.integer(ConfigKey.RETRY_UNROUTABLE_MAX_ATTEMPTS, 1, 1000);
        RetryPolicy retryPolicy = reader.build(ConfigKey.RETRY_INITIAL_DELAY, () -> RetryPolicy.custom()
                .initialDelay(initialDelay).multiplier(multiplier).maxDelay(maxDelay).jitter(jitter)
                .unroutableMaxAttempts(unroutableMaxAttempts).build(),
                RetryPolicy.ofDefaults());
        Duration leaseTimeout = reader.duration(ConfigKey.SWEEPER_LEASE_TIMEOUT);
        int sweepChunk = reader.integer(ConfigKey.SWEEPER_CHUNK_SIZE, 1, 100_000);
        SweeperSettings sweeper = reader.build(ConfigKey.SWEEPER_LEASE_TIMEOUT, () -> new SweeperSettings(leaseTimeout,
                sweepChunk, SweeperSettings.DEFAULT_MAX_CHUNKS_PER_TICK), SweeperSettings.ofDefaults());
        Duration retention = reader.duration(ConfigKey.CLEANER_RETENTION);
        int cleanChunk = reader.integer(ConfigKey.CLEANER_CHUNK_SIZE, 1, 100_000);
        CleanerSettings cleaner = reader.build(ConfigKey.CLEANER_RETENTION, () -> new CleanerSettings(retention,
                cleanChunk, CleanerSettings.DEFAULT_MAX_CHUNKS_PER_TICK), CleanerSettings.ofDefaults());

        OutboxWorkerConfig.Builder workerBuilder = OutboxWorkerConfig.custom()
                .relay(relay)
                .relayThreads(reader.integer(ConfigKey.RELAY_THREADS, 1, OutboxWorkerConfig.MAX_RELAY_THREADS))
                .pollInterval(reader.duration(ConfigKey.RELAY_POLL_INTERVAL))
                .retryPolicy(retryPolicy)
                .sweeper(sweeper)
                .sweepInterval(reader.duration(ConfigKey.SWEEPER_INTERVAL))
                .cleanerEnabled(reader.bool(ConfigKey.CLEANER_ENABLED))
                .cleaner(cleaner)
                .cleanInterval(reader.duration(ConfigKey.CLEANER_INTERVAL))
                .backoffInitial(reader.duration(ConfigKey.BACKOFF_INITIAL))
                .backoffMax(reader.duration(ConfigKey.BACKOFF_MAX))
                .shutdownTimeout(reader.duration(ConfigKey.SHUTDOWN_TIMEOUT))
                .metricsPollInterval(reader.duration(ConfigKey.METRICS_POLL_INTERVAL))
                .logSummaryInterval(reader.duration(ConfigKey.LOG_SUMMARY_INTERVAL))
                .maxBrokerOutage(reader.duration(ConfigKey.HEALTH_MAX_BROKER_OUTAGE));
        OutboxWorkerConfig worker = OutboxWorkerConfig.ofDefaults();
        try {
            worker = workerBuilder.build();
        } catch (InvalidSettingsException e) {
            reader.problems.addAll(e.problems());
        }
        WakeUpMode wakeUp = reader.choice(ConfigKey.RELAY_WAKEUP, WakeUpMode.NOTIFY_AFTER_COMMIT, value -> switch (value) {
            case "notify" -> Optional.of(WakeUpMode.NOTIFY_AFTER_COMMIT);
            case "polling" -> Optional.of(WakeUpMode.NONE);
            default -> Optional.empty();
        }, "notify, polling");
        String logLevel = reader.choice(ConfigKey.LOG_LEVEL, "info", value -> switch (value) {
            case "error", "warn", "info", "debug", "trace" -> Optional.of(value);
            default -> Optional.empty();
        }, "error, warn, info, debug, trace");
        if (poolSize < ConnectionBudget.needed(worker, wakeUp)) {
            reader.problem(ConfigKey.DB_POOL_SIZE, "must be at least " + ConnectionBudget.needed(worker, wakeUp) + ": "
                    + ConfigKey.RELAY_THREADS.property() + "=" + worker.relayThreads() + " relay thread(s) hold one "
                    + "connection each" + (wakeUp.listens() ? ", and with " + ConfigKey.RELAY_WAKEUP.property()
                    + "=notify the LISTEN connection is held for good" : "") + "; lower the relay threads or "
                    + "enlarge the pool");
        }
        HttpConfig http = new HttpConfig(reader.string(ConfigKey.HTTP_HOST),
                reader.integer(ConfigKey.HTTP_PORT, 0, 65_535));
        String inboxSetting = reader.string(ConfigKey.HEALTH_INBOX_TABLE);
        String inboxTable = inboxSetting.equalsIgnoreCase("none") ? "" : inboxSetting;
        if (!inboxTable.isEmpty()) {
            try {
                dev.outboxjava.postgres.inbox.PostgresInboxConfig.builder().tableName(inboxTable).build();
            } catch (InvalidConfigurationException e) {
                reader.problem(ConfigKey.HEALTH_INBOX_TABLE,
                        e.getMessage().replaceFirst("^invalid outbox setting '[^']*': ", ""));
            }
        }
        Duration maxLag = reader.duration(ConfigKey.HEALTH_MAX_LAG);
        Duration maxXminAge = reader.duration(ConfigKey.HEALTH_MAX_XMIN_AGE);
        HealthConfig health = reader.build(ConfigKey.HEALTH_MAX_LAG, () -> new HealthConfig(maxLag, maxXminAge,
                inboxTable.isEmpty() ? Optional.empty() : Optional.of(inboxTable)), HealthConfig.ofDefaults());

        List<Requirement> requirements = List.of(required);
        if (requirements.contains(Requirement.DATABASE) && database.isEmpty()) {
            reader.problems.add(missing(ConfigKey.DB_URL, DATABASE_HINT).problems().get(0));
        }
        if (requirements.contains(Requirement.BROKER) && brokerKind.isEmpty()) {
            reader.problems.add(missing(ConfigKey.BROKER, BROKER_HINT).problems().get(0));
        }
        if (!reader.problems.isEmpty()) {
            throw new InvalidSettingsException(dedupe(reader.problems));
        }
        return new OutboxSettings(database, broker, worker, http, wakeUp, table, logLevel, health, layout);
    }

    private static List<InvalidSettingsException.Problem> dedupe(List<InvalidSettingsException.Problem> problems) {
        return problems.stream().distinct().toList();
    }

    /** The database settings, when {@code outbox.db.url} is set. */
    public Optional<DatabaseConfig> database() {
        return database;
    }

    /**
     * The database settings.
     *
     * @throws InvalidSettingsException naming {@code outbox.db.url} when it is not set
     */
    public DatabaseConfig requireDatabase() {
        return database.orElseThrow(() -> missing(ConfigKey.DB_URL, DATABASE_HINT));
    }

    /** The broker settings, when {@code outbox.broker} is set. */
    public Optional<BrokerConfig> broker() {
        return broker;
    }

    /**
     * The broker settings.
     *
     * @throws InvalidSettingsException naming {@code outbox.broker} when it is not set
     */
    public BrokerConfig requireBroker() {
        return broker.orElseThrow(() -> missing(ConfigKey.BROKER, BROKER_HINT));
    }

    /** The loops' settings. */
    public OutboxWorkerConfig worker() {
        return worker;
    }

    /** The HTTP server's settings. */
    public HttpConfig http() {
        return http;
    }

    /** How the idle relay is woken besides polling. */
    public WakeUpMode wakeUp() {
        return wakeUp;
    }

    /** How the store keeps its events, {@code outbox.store.layout} (also without a database URL, for {@code schema}). */
    public StoreLayout layout() {
        return layout;
    }

    /** The outbox table (also without a database URL, for {@code schema}). */
    public String table() {
        return table;
    }

    /** The thresholds of the database health signals and the watched inbox table. */
    public HealthConfig health() {
        return health;
    }

    /** The standalone process's log level, lower case. */
    public String logLevel() {
        return logLevel;
    }

    private static InvalidSettingsException missing(ConfigKey key, String what) {
        return new InvalidSettingsException(List.of(new InvalidSettingsException.Problem(key.displayName(),
                "is required: " + what)));
    }

    /** Reads one key at a time, falling back to the default and recording problems instead of throwing. */
    private static final class Reader {
        final ConfigSource source;
        final List<InvalidSettingsException.Problem> problems = new ArrayList<>();

        Reader(ConfigSource source) {
            this.source = Objects.requireNonNull(source, "source");
        }

        void problem(ConfigKey key, String reason) {
            problems.add(new InvalidSettingsException.Problem(key.displayName(), reason));
        }

        /** A problem with a key under a pass-through prefix, named in both spellings. */
        void passThroughProblem(String prefix, String name, String reason) {
            String property = prefix + name;
            problems.add(new InvalidSettingsException.Problem(property + " (" + ConfigKey.envName(property) + ")",
                    reason));
        }

        String string(ConfigKey key) {
            return source.get(key).orElse(key.defaultValue());
        }

        int integer(ConfigKey key, int min, int max) {
            String value = string(key);
            int fallback = Integer.parseInt(key.defaultValue());
            try {
                int parsed = Integer.parseInt(value.replace("_", ""));
                if (parsed < min || parsed > max) {
                    problem(key, "must be between " + min + " and " + max + ", was " + parsed);
                    return fallback;
                }
                return parsed;
            } catch (NumberFormatException e) {
                problem(key, "must be a whole number, was '" + value + "'");
                return fallback;
            }
        }

        double decimal(ConfigKey key) {
            String value = string(key);
            try {
                return Double.parseDouble(value);
            } catch (NumberFormatException e) {
                problem(key, "must be a number, was '" + value + "'");
                return Double.parseDouble(key.defaultValue());
            }
        }

        boolean bool(ConfigKey key) {
            String value = string(key).toLowerCase(Locale.ROOT);
            if (value.equals("true") || value.equals("false")) {
                return Boolean.parseBoolean(value);
            }
            problem(key, "must be true or false, was '" + value + "'");
            return Boolean.parseBoolean(key.defaultValue());
        }

        Duration duration(ConfigKey key) {
            String value = string(key);
            try {
                return Durations.parse(value);
            } catch (IllegalArgumentException e) {
                problem(key, e.getMessage());
                return Durations.parse(key.defaultValue());
            }
        }

        <T> T choice(ConfigKey key, T fallback, Function<String, Optional<T>> parser, String accepted) {
            String value = string(key);
            Optional<T> parsed = parser.apply(value.toLowerCase(Locale.ROOT));
            if (parsed.isEmpty()) {
                problem(key, "must be one of " + accepted + ", was '" + value + "'");
                return fallback;
            }
            return parsed.get();
        }

        <T> Optional<T> optionalChoice(ConfigKey key, Function<String, Optional<T>> parser, String accepted) {
            Optional<String> value = source.get(key);
            if (value.isEmpty()) {
                return Optional.empty();
            }
            Optional<T> parsed = parser.apply(value.get());
            if (parsed.isEmpty()) {
                problem(key, "must be one of " + accepted + ", was '" + value.get() + "'");
            }
            return parsed;
        }

        /** Builds a core settings object; its own validation message is kept, re-labelled with our key. */
        <T> T build(ConfigKey key, Supplier<T> factory, T fallback) {
            try {
                return factory.get();
            } catch (InvalidConfigurationException e) {
                problem(keyFor(e.setting(), key), e.getMessage().replaceFirst("^invalid outbox setting '[^']*': ", ""));
                return fallback;
            }
        }

        /** The core names its settings {@code relay.batchSize}; point the operator at our key instead. */
        private static ConfigKey keyFor(String coreSetting, ConfigKey fallback) {
            return switch (coreSetting) {
                case "relay.batchSize" -> ConfigKey.RELAY_BATCH_SIZE;
                case "relay.publishTimeout" -> ConfigKey.RELAY_PUBLISH_TIMEOUT;
                case "retry.initialDelay" -> ConfigKey.RETRY_INITIAL_DELAY;
                case "retry.multiplier" -> ConfigKey.RETRY_MULTIPLIER;
                case "retry.maxDelay" -> ConfigKey.RETRY_MAX_DELAY;
                case "retry.jitter" -> ConfigKey.RETRY_JITTER;
                case "sweeper.leaseTimeout" -> ConfigKey.SWEEPER_LEASE_TIMEOUT;
                case "sweeper.chunkSize" -> ConfigKey.SWEEPER_CHUNK_SIZE;
                case "cleaner.retention" -> ConfigKey.CLEANER_RETENTION;
                case "cleaner.chunkSize" -> ConfigKey.CLEANER_CHUNK_SIZE;
                case "outbox.health.max.lag" -> ConfigKey.HEALTH_MAX_LAG;
                case "outbox.health.max.xmin.age" -> ConfigKey.HEALTH_MAX_XMIN_AGE;
                default -> fallback;
            };
        }
    }
}
