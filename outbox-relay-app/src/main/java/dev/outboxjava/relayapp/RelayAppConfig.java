package dev.outboxjava.relayapp;

import dev.outboxjava.postgres.StoreLayout;
import dev.outboxjava.postgres.WakeUpMode;
import dev.outboxjava.worker.ConnectionBudget;
import dev.outboxjava.worker.HealthConfig;
import dev.outboxjava.worker.InvalidSettingsException;
import dev.outboxjava.worker.OutboxWorkerConfig;
import java.util.List;
import java.util.Optional;

/**
 * Every setting of the standalone worker and the command line, read from a {@link ConfigSource}
 * through the {@link ConfigKey} table and turned into typed objects per component.
 *
 * <p>{@link #load(ConfigSource)} reads all keys, collects every problem (unknown keys, values that
 * do not parse, values out of range, cross-checks) and throws ONE {@link InvalidSettingsException}
 * listing them. Whether the database and broker are required depends on the command, so those are
 * checked by {@link #requireDatabase()} and {@link #requireBroker()}.
 */
public final class RelayAppConfig {

    private static final String DATABASE_HINT =
            "the database of the outbox table, e.g. " + "jdbc:postgresql://127.0.0.1:5432/app";
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
    private final ConsoleConfig console;
    private final Optional<OutboxesConfig> outboxes;
    private final List<String> warnings;

    private RelayAppConfig(
            Optional<DatabaseConfig> database,
            Optional<BrokerConfig> broker,
            OutboxWorkerConfig worker,
            HttpConfig http,
            WakeUpMode wakeUp,
            String table,
            String logLevel,
            HealthConfig health,
            StoreLayout layout,
            ConsoleConfig console,
            Optional<OutboxesConfig> outboxes,
            List<String> warnings) {
        this.console = console;
        this.outboxes = outboxes;
        this.warnings = warnings;
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
    public static RelayAppConfig fromEnvironment() {
        return load(ConfigSource.environment());
    }

    /**
     * Reads and checks every key.
     *
     * @throws InvalidSettingsException listing every problem, each naming its key
     */
    public static RelayAppConfig load(ConfigSource source) {
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
    public static RelayAppConfig load(ConfigSource source, Requirement... required) {
        ConfigReader reader = new ConfigReader(source);
        reader.rejectUnknownKeys();
        DatabaseReader.Section store = DatabaseReader.read(reader);
        Optional<OutboxesConfig> outboxes = OutboxesReader.read(reader, store.table(), store.layout());
        Optional<BrokerConfig> broker = BrokerReader.read(reader);
        OutboxWorkerConfig worker = WorkerReader.read(reader);
        WakeUpMode wakeUp = wakeUp(reader, worker, store.poolSize());
        String logLevel = reader.choice(
                ConfigKey.LOG_LEVEL,
                "info",
                value -> switch (value) {
                    case "error", "warn", "info", "debug", "trace" -> Optional.of(value);
                    default -> Optional.empty();
                },
                "error, warn, info, debug, trace");
        HttpConfig http =
                new HttpConfig(reader.string(ConfigKey.HTTP_HOST), reader.integer(ConfigKey.HTTP_PORT, 0, 65_535));
        HealthConfig health = HealthReader.read(reader);
        ConsoleConfig console = new ConsoleConfig(
                reader.bool(ConfigKey.CONSOLE_ENABLED),
                reader.bool(ConfigKey.CONSOLE_ALLOW_REMOTE),
                Optional.of(reader.string(ConfigKey.CONSOLE_ADMIN_TOKEN)));
        if (console.enabled() && !http.enabled()) {
            reader.problem(
                    ConfigKey.CONSOLE_ENABLED,
                    "needs the HTTP server, which serves it under /console: set " + ConfigKey.HTTP_PORT.displayName()
                            + " to a port (it is 0)");
        }

        List<Requirement> requirements = List.of(required);
        if (requirements.contains(Requirement.DATABASE) && store.config().isEmpty()) {
            reader.problem(ConfigKey.DB_URL, "is required: " + DATABASE_HINT);
        }
        if (requirements.contains(Requirement.BROKER) && broker.isEmpty()) {
            reader.problem(ConfigKey.BROKER, "is required: " + BROKER_HINT);
        }
        reader.throwIfProblems();
        return new RelayAppConfig(
                store.config(),
                broker,
                worker,
                http,
                wakeUp,
                store.table(),
                logLevel,
                health,
                store.layout(),
                console,
                outboxes,
                reader.warnings());
    }

    /**
     * {@code outbox.relay.wakeup}, and the pool the worker needs: a connection per relay thread, and the
     * LISTEN connection, held for good, when the wake-up listens.
     */
    private static WakeUpMode wakeUp(ConfigReader reader, OutboxWorkerConfig worker, int poolSize) {
        WakeUpMode wakeUp = reader.choice(
                ConfigKey.RELAY_WAKEUP,
                WakeUpMode.NOTIFY_AFTER_COMMIT,
                value -> switch (value) {
                    case "notify_after_commit" -> Optional.of(WakeUpMode.NOTIFY_AFTER_COMMIT);
                    case "trigger_notify" -> Optional.of(WakeUpMode.TRIGGER_NOTIFY);
                    case "none" -> Optional.of(WakeUpMode.NONE);
                    // older spellings that deployments may still carry: accepted, with a warning
                    case "notify" ->
                        olderSpelling(reader, value, "notify_after_commit", WakeUpMode.NOTIFY_AFTER_COMMIT);
                    case "polling" -> olderSpelling(reader, value, "none", WakeUpMode.NONE);
                    default -> Optional.empty();
                },
                "notify_after_commit, trigger_notify, none");
        int needed = ConnectionBudget.needed(worker, wakeUp);
        if (poolSize < needed) {
            reader.problem(
                    ConfigKey.DB_POOL_SIZE,
                    "must be at least " + needed + ": "
                            + ConfigKey.RELAY_THREADS.property() + "=" + worker.relayThreads()
                            + " relay thread(s) hold one "
                            + "connection each"
                            + (wakeUp.listens()
                                    ? ", and the LISTEN connection of " + ConfigKey.RELAY_WAKEUP.property()
                                            + " is held for good"
                                    : "")
                            + "; lower the relay threads or enlarge the pool");
        }
        return wakeUp;
    }

    private static Optional<WakeUpMode> olderSpelling(
            ConfigReader reader, String value, String current, WakeUpMode mode) {
        reader.warning(
                ConfigKey.RELAY_WAKEUP,
                "'" + value + "' is an older spelling of '" + current + "'; it still works, set '" + current
                        + "' instead");
        return Optional.of(mode);
    }

    /**
     * Values that were accepted but should be changed (older spellings), one sentence each naming its
     * key; the command line logs them at WARN when it starts.
     */
    public List<String> warnings() {
        return warnings;
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

    /**
     * The outboxes of a worker of many tables ({@code outbox.tables} or {@code outbox.discovery.schema.pattern}); empty
     * when the worker relays the one table of {@link #table()}.
     */
    public Optional<OutboxesConfig> outboxes() {
        return outboxes;
    }

    /** The web console's settings. */
    public ConsoleConfig console() {
        return console;
    }

    /** Where {@code /metrics} and {@code /health} are served. */
    public HttpConfig http() {
        return http;
    }

    /**
     * How the idle relay is woken besides polling: it LISTENs on the table's channel unless this is
     * {@link WakeUpMode#NONE}; {@code run --ensure-schema} creates the NOTIFY trigger with
     * {@link WakeUpMode#TRIGGER_NOTIFY}.
     */
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
        return new InvalidSettingsException(
                List.of(new InvalidSettingsException.Problem(key.displayName(), "is required: " + what)));
    }
}
