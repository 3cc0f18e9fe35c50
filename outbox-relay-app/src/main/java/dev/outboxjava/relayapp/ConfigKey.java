package dev.outboxjava.relayapp;

import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Every setting the standalone relay application and its command line understand: ONE table, from
 * which both spellings are derived: the properties-file key ({@code outbox.relay.batch.size}) and the
 * environment variable ({@code OUTBOX_RELAY_BATCH_SIZE}: upper case, dots become underscores). A service
 * that embeds the worker does not read these; it configures the worker's builders in code.
 *
 * <p>Any {@code outbox.*} property or {@code OUTBOX_*} environment variable that is not in this
 * table is rejected at start, so a typo never silently falls back to a default. Two prefixes hand
 * keys on to the broker clients instead ({@link #KAFKA_PROPERTY_PREFIX}, {@link #RABBITMQ_PROPERTY_PREFIX}),
 * and those are checked against the client's own setting names. The prefix {@code OUTBOX_TEST_} is
 * reserved for the testkit's fixture settings and ignored here.
 */
public enum ConfigKey {
    DB_URL(
            "outbox.db.url",
            "",
            "JDBC URL of the PostgreSQL database holding the outbox table, e.g. "
                    + "jdbc:postgresql://127.0.0.1:5432/app. Required by every command except schema without --apply."),
    DB_USER("outbox.db.user", "", "Database user; empty = the driver's default (or the one in the URL)."),
    DB_PASSWORD("outbox.db.password", "", "Database password; empty = none (or the one in the URL)."),
    DB_POOL_SIZE(
            "outbox.db.pool.size",
            "4",
            "Most database connections the worker opens (1-100); the relay "
                    + "threads, the sweeper, the cleaner and the metrics poller share them; a draining relay thread "
                    + "uses two at once (its lease beside its previous batch's marks)."),
    TABLE("outbox.table", "outbox_events", "The outbox table, table or schema.table (lower-case letters, digits, _)."),
    TABLES(
            "outbox.tables",
            "",
            "Several outbox tables relayed by one worker, comma-separated (table or schema.table each, e.g. "
                    + "tenant_a.outbox_events,tenant_b.outbox_events): the relay threads take the tables that have "
                    + "work in a fair turn, over one pool and one LISTEN connection, and readiness names the table "
                    + "that is behind; each table takes the other outbox.* settings. The operator commands follow: status "
                    + "shows each table and a summary, the commands on events (dead-letters, retries, purge) take "
                    + "--table schema.table. Empty = the one table of outbox.table. Not with "
                    + "outbox.discovery.schema.pattern."),
    DISCOVERY_SCHEMA_PATTERN(
            "outbox.discovery.schema.pattern",
            "",
            "Relays, by one worker as with outbox.tables, every schema whose whole name matches this regular "
                    + "expression (e.g. tenant_.*) and that holds the table outbox.table (then unqualified); looked "
                    + "up again every outbox.discovery.interval, so a new tenant is picked up and a dropped one let "
                    + "go without a restart. Empty = no discovery."),
    DISCOVERY_INTERVAL(
            "outbox.discovery.interval",
            "30s",
            "With outbox.discovery.schema.pattern: how often the schemas holding the table are looked up again."),
    COMPLETION_MODE(
            "outbox.completion.mode",
            "keep_sent",
            "keep_sent: keep published events as 'sent' for "
                    + "outbox.cleaner.retention; delete_on_publish: delete a row as soon as the broker acknowledged it."),
    STORE_LAYOUT(
            "outbox.store.layout",
            "append_log",
            "append_log: events are only appended and read by position, with side tables for state and sent events, "
                    + "so that a long transaction holding back vacuum (a report, pg_dump, an idle-in-transaction "
                    + "session) does not slow the relay down. in_place: one table, each event's row updated as it "
                    + "moves. Each has its own schema (the schema command prints it)."),

    ORDERING(
            "outbox.ordering",
            "none",
            "none: publish events as soon as they are due, in any order (fastest); "
                    + "per_key: events with the same key reach the broker in append order, one relay at a time per key."),
    AFTER_DEAD_LETTER(
            "outbox.after.dead.letter",
            "hold_key",
            "With outbox.ordering=per_key: "
                    + "hold_key keeps a dead letter's later events of the same key back until an operator requeues or purges "
                    + "it; continue goes on with the key's next event."),

    BROKER("outbox.broker", "", "Which broker the relay publishes to: kafka or rabbitmq. Required by run."),
    KAFKA_BOOTSTRAP_SERVERS(
            "outbox.kafka.bootstrap.servers",
            "",
            "Kafka bootstrap servers, host:port[,host:port]. " + "Required when outbox.broker=kafka."),
    KAFKA_CLIENT_ID("outbox.kafka.client.id", "outbox-relay", "Kafka client.id of the relay's producer."),
    RABBITMQ_URI(
            "outbox.rabbitmq.uri",
            "amqp://guest:guest@127.0.0.1:5672/%2F",
            "AMQP URI of the RabbitMQ broker " + "(amqp:// or amqps://, credentials and virtual host included)."),
    RABBITMQ_CONNECTION_NAME(
            "outbox.rabbitmq.connection.name",
            "outbox-relay",
            "Client-provided connection name, " + "shown in the RabbitMQ management UI."),

    RELAY_BATCH_SIZE(
            "outbox.relay.batch.size",
            "",
            "Events leased per relay tick (1-10000); empty = 1000, or 500 with outbox.ordering=per_key (a batch "
                    + "keeps its keys from the other relays until it is published)."),
    RELAY_THREADS(
            "outbox.relay.threads",
            "1",
            "Relay threads in this process (1-64); each leases its own batches, one lease at a time per table. "
                    + "Keep relay threads (across all relay processes) at or below the database's spare cores: beyond "
                    + "them, more threads drain slower, not faster (docs/configuration.md#choosing-values)."),
    RELAY_PUBLISH_TIMEOUT(
            "outbox.relay.publish.timeout",
            "30s",
            "How long a batch may wait for broker " + "acknowledgements; must be below outbox.sweeper.lease.timeout."),
    RELAY_POLL_INTERVAL(
            "outbox.relay.poll.interval",
            "1s",
            "How long an idle relay waits before polling again " + "when no wake-up arrives."),
    RELAY_MAX_IDLE_POLL_INTERVAL(
            "outbox.relay.max.idle.poll.interval",
            "10s",
            "With outbox.tables or outbox.discovery.schema.pattern: the longest wait between two polls of a table that keeps "
                    + "finding nothing (after an empty poll the wait starts at outbox.relay.poll.interval and doubles; "
                    + "a wake-up of the table's channel ends it), which bounds what idle tables cost."),
    RELAY_WAKEUP(
            "outbox.relay.wakeup",
            "notify_after_commit",
            "How an idle relay learns of new events besides "
                    + "polling. notify_after_commit: producers notify the table's channel after commit, the relay LISTENs and "
                    + "wakes at once; trigger_notify: the same, notified by a trigger that run --ensure-schema creates; "
                    + "none: poll on outbox.relay.poll.interval only. The older spellings notify and polling are "
                    + "accepted with a warning."),

    RETRY_INITIAL_DELAY("outbox.retry.initial.delay", "1s", "Delay before an event's first retry."),
    RETRY_MULTIPLIER("outbox.retry.multiplier", "2.0", "Growth factor between an event's retry delays (>= 1)."),
    RETRY_MAX_DELAY("outbox.retry.max.delay", "5m", "Longest delay between an event's retries."),
    RETRY_JITTER("outbox.retry.jitter", "0.2", "Random spread of retry delays, 0 (none) to 1."),
    RETRY_UNROUTABLE_MAX_ATTEMPTS(
            "outbox.retry.unroutable.max.attempts",
            "3",
            "Attempts an event gets when its "
                    + "destination does not exist or routes it nowhere (RabbitMQ 404 or unroutable return, missing Kafka "
                    + "topic) before it is dead-lettered (1-1000; fewer when the event's own budget is smaller)."),

    SWEEPER_INTERVAL("outbox.sweeper.interval", "30s", "How often the sweeper looks for abandoned leases."),
    SWEEPER_LEASE_TIMEOUT(
            "outbox.sweeper.lease.timeout",
            "2m",
            "A lease older than this is presumed abandoned " + "(its relay died) and its events go back to pending."),
    SWEEPER_CHUNK_SIZE("outbox.sweeper.chunk.size", "1000", "Events reclaimed per statement."),

    CLEANER_ENABLED("outbox.cleaner.enabled", "true", "Whether this process deletes old sent events."),
    CLEANER_INTERVAL("outbox.cleaner.interval", "5m", "How often the cleaner runs."),
    CLEANER_RETENTION("outbox.cleaner.retention", "7d", "How long sent events are kept."),
    CLEANER_CHUNK_SIZE("outbox.cleaner.chunk.size", "5000", "Rows deleted per statement."),

    BACKOFF_INITIAL(
            "outbox.backoff.initial",
            "500ms",
            "First pause of a loop after its database or broker " + "failed; doubles on every further failure."),
    BACKOFF_MAX("outbox.backoff.max", "30s", "Longest pause of a loop during an outage."),
    SHUTDOWN_TIMEOUT(
            "outbox.shutdown.timeout",
            "10s",
            "On shutdown, how long the batches in flight may take to "
                    + "finish; events still unfinished then are released back to pending."),
    METRICS_POLL_INTERVAL(
            "outbox.metrics.poll.interval",
            "15s",
            "How often the backlog gauges (pending, in flight, dead letters, oldest pending age, the backlog by "
                    + "what it waits for) are refreshed from the database: once per interval, never per scrape; "
                    + "each refresh reads every pending row, so raise it when a large backlog is common."),
    HEALTH_MAX_LAG(
            "outbox.health.max.lag",
            "5m",
            "Readiness (/health/ready, status) turns DOWN when an event "
                    + "a relay could publish now has waited longer than this since it became due; events waiting for a "
                    + "retry, scheduled for later or held behind their key never count; 0s = lag never flips readiness."),
    HEALTH_MAX_BROKER_OUTAGE(
            "outbox.health.max.broker.outage",
            "30s",
            "Readiness turns DOWN when the broker has "
                    + "failed its health check for longer than this (a broker restart or a short network cut does not "
                    + "take the worker out of service); 0s = at the first failed check."),
    HEALTH_MAX_XMIN_AGE(
            "outbox.health.max.xmin.age",
            "10m",
            "Readiness turns DOWN when a transaction of the "
                    + "database has been open longer than this (it holds back the xmin horizon: vacuum cannot clean the "
                    + "outbox, and with per_key ordering newer events wait); 0s = never flips readiness."),
    HEALTH_INBOX_TABLE(
            "outbox.health.inbox.table",
            "outbox_inbox",
            "Inbox table whose size is reported " + "(metrics, status); a missing table is skipped; none = no inbox."),
    HTTP_PORT(
            "outbox.http.port",
            "8080",
            "Port of /metrics, /health and /health/ready in the standalone " + "process; 0 = no HTTP server."),
    HTTP_HOST("outbox.http.host", "0.0.0.0", "Address the HTTP server binds to."),
    CONSOLE_ENABLED(
            "outbox.console.enabled",
            "false",
            "Serves the operator's web console (docs/console.md) under "
                    + "/console on the HTTP server of outbox.http.port, beside /health and /metrics: events per state and "
                    + "destination, dead letters to find, requeue, purge or edit, retries, held keys, the audit trail."),
    CONSOLE_ALLOW_REMOTE(
            "outbox.console.allow.remote",
            "false",
            "Whether clients on other machines may use the "
                    + "web console. By default it answers only this machine (loopback: an SSH tunnel or kubectl "
                    + "port-forward), while /health and /metrics on the same port answer everyone; allow remote clients "
                    + "only behind a proxy that authenticates."),
    CONSOLE_ADMIN_TOKEN(
            "outbox.console.admin.token",
            "",
            "The admin credential an operator signs in to the web "
                    + "console with to requeue, purge or edit dead letters; empty = the console is read-only. A secret: "
                    + "shown masked everywhere."),
    LOG_SUMMARY_INTERVAL(
            "outbox.log.summary.interval",
            "60s",
            "How often each relay logs one summary line "
                    + "(published, retried, dead-lettered, lease lost, lag) instead of a line per event; 0s = off."),
    LOG_LEVEL("outbox.log.level", "info", "Log level of the standalone process: error, warn, info, debug or trace.");

    /** Prefix of every property key. */
    public static final String PROPERTY_PREFIX = "outbox.";
    /** Prefix of every environment variable. */
    public static final String ENV_PREFIX = "OUTBOX_";
    /** Environment variables with this prefix belong to the testkit and are not worker settings. */
    public static final String RESERVED_ENV_PREFIX = "OUTBOX_TEST_";
    /**
     * Any other key under this prefix is a Kafka producer property handed to the client as it is:
     * {@code outbox.kafka.max.block.ms} or {@code OUTBOX_KAFKA_MAX_BLOCK_MS} sets {@code max.block.ms}.
     */
    public static final String KAFKA_PROPERTY_PREFIX = "outbox.kafka.";
    /**
     * Any other key under this prefix is a RabbitMQ connection setting, named as amqp-client's
     * {@code ConnectionFactoryConfigurator} names them: {@code outbox.rabbitmq.virtual.host} or
     * {@code OUTBOX_RABBITMQ_VIRTUAL_HOST} sets {@code virtual.host}.
     */
    public static final String RABBITMQ_PROPERTY_PREFIX = "outbox.rabbitmq.";
    /** The prefixes whose keys are handed to a broker client instead of being looked up in this table. */
    public static final java.util.List<String> PASS_THROUGH_PREFIXES =
            java.util.List.of(KAFKA_PROPERTY_PREFIX, RABBITMQ_PROPERTY_PREFIX);

    private static final Map<String, ConfigKey> BY_PROPERTY =
            Arrays.stream(values()).collect(Collectors.toUnmodifiableMap(ConfigKey::property, Function.identity()));
    private static final Map<String, ConfigKey> BY_ENV =
            Arrays.stream(values()).collect(Collectors.toUnmodifiableMap(ConfigKey::env, Function.identity()));

    private final String property;
    private final String env;
    private final String defaultValue;
    private final String description;

    ConfigKey(String property, String defaultValue, String description) {
        this.property = property;
        this.env = envName(property);
        this.defaultValue = defaultValue;
        this.description = description;
    }

    /** The key in a properties file, e.g. {@code outbox.db.url}. */
    public String property() {
        return property;
    }

    /** The environment variable, e.g. {@code OUTBOX_DB_URL}. */
    public String env() {
        return env;
    }

    /** The value used when the key is not set; empty when the key has no default. */
    public String defaultValue() {
        return defaultValue;
    }

    /** What the key does, for {@code --help} and docs/configuration.md. */
    public String description() {
        return description;
    }

    /** The key with this property name. */
    public static Optional<ConfigKey> byProperty(String property) {
        return Optional.ofNullable(BY_PROPERTY.get(property));
    }

    /** The key with this environment variable name. */
    public static Optional<ConfigKey> byEnv(String env) {
        return Optional.ofNullable(BY_ENV.get(env));
    }

    /** The environment-variable spelling of a property key: upper case, dots become underscores. */
    public static String envName(String property) {
        return property.toUpperCase(Locale.ROOT).replace('.', '_');
    }

    /** Whether a property key lies under one of the {@link #PASS_THROUGH_PREFIXES}. */
    public static boolean isPassThrough(String property) {
        return PASS_THROUGH_PREFIXES.stream().anyMatch(property::startsWith);
    }

    /** Whether an environment variable lies under one of the {@link #PASS_THROUGH_PREFIXES}. */
    public static boolean isPassThroughEnv(String env) {
        return PASS_THROUGH_PREFIXES.stream().anyMatch(prefix -> env.startsWith(envName(prefix)));
    }

    /** Both spellings, for messages: {@code outbox.db.url (OUTBOX_DB_URL)}. */
    public String displayName() {
        return property + " (" + env + ")";
    }

    /** The key table as Markdown (docs/configuration.md, {@code outbox-worker keys}). */
    public static String markdownTable() {
        StringBuilder table =
                new StringBuilder("| property | environment variable | default | meaning |\n" + "|---|---|---|---|\n");
        for (ConfigKey key : values()) {
            table.append("| `")
                    .append(key.property)
                    .append("` | `")
                    .append(key.env)
                    .append("` | ")
                    .append(key.defaultValue.isEmpty() ? "—" : "`" + key.defaultValue + "`")
                    .append(" | ")
                    .append(key.description.replace("|", "\\|"))
                    .append(" |\n");
        }
        return table.toString();
    }
}
