package dev.outboxjava.spring.boot;

import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.RetryPolicy;
import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.core.relay.CleanerConfig;
import dev.outboxjava.core.relay.RelayConfig;
import dev.outboxjava.core.relay.SweeperConfig;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.StoreLayout;
import dev.outboxjava.postgres.WakeUpMode;
import dev.outboxjava.postgres.inbox.PostgresInboxConfig;
import dev.outboxjava.worker.Durations;
import dev.outboxjava.worker.HealthConfig;
import dev.outboxjava.worker.MultiOutboxConfig;
import dev.outboxjava.worker.OutboxTables;
import dev.outboxjava.worker.OutboxWorkerConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * The {@code outbox.*} properties of a Spring Boot application: one tree, kebab-case, from which both
 * the appending side and the relay are configured. Spring Boot validates them when it binds them: an
 * unusable value stops the application at start with the property's name and the reason.
 *
 * <pre>
 * outbox:
 *   table: billing.outbox_events
 *   ordering:
 *     mode: per-key
 *   relay:
 *     threads: 2
 * </pre>
 */
@ConfigurationProperties("outbox")
public class OutboxProperties implements Validator {

    // Defaults are literals, equal to the library's (OutboxPropertiesTest): the configuration processor
    // records literals in the metadata, which IDEs and docs/spring-boot.md show.

    static final Pattern TABLE = Pattern.compile("([a-z_][a-z0-9_]*\\.)?[a-z_][a-z0-9_]*");

    /** The outbox table, "table" or "schema.table": lower-case letters, digits and '_'. */
    private String table = "outbox_events";

    /**
     * What happens to a row once the broker acknowledged it: keep-sent keeps it as 'sent' for
     * outbox.cleaner.retention; delete-on-publish deletes it at once.
     */
    private CompletionMode completionMode = CompletionMode.KEEP_SENT;

    /**
     * How an idle relay learns of new events besides polling. notify-after-commit (the default): after
     * each commit that appended, a NOTIFY wakes the relays of every instance (the relay holds one pooled
     * connection for LISTEN). in-process: only this instance's relay is woken, without the database.
     * trigger-notify: a trigger on the table notifies (costs producer throughput). none: polling only.
     */
    private WakeUpMode wakeUp = WakeUpMode.NOTIFY_AFTER_COMMIT;

    /** Which broker the relay publishes to when both broker modules are on the classpath: kafka or rabbitmq. */
    private Broker broker;

    /**
     * Several outbox tables ("table" or "schema.table" each) relayed by one worker of many outboxes over the
     * application's data source, the relay threads taking the tables that have work in a fair turn; each takes
     * the other outbox.* settings. Empty = the relay relays outbox.table. Not with outbox.discovery.schema-pattern.
     */
    private List<String> tables = new ArrayList<>();

    private final Discovery discovery = new Discovery();

    private final Store store = new Store();
    private final OrderingProperties ordering = new OrderingProperties();
    private final Relay relay = new Relay();
    private final Retry retry = new Retry();
    private final Sweeper sweeper = new Sweeper();
    private final Cleaner cleaner = new Cleaner();
    private final Health health = new Health();
    private final Schema schema = new Schema();
    private final InboxProperties inbox = new InboxProperties();
    /**
     * Routes of the application's event types to the outbox, by the event's fully qualified class name:
     * outbox.routes[com.example.OrderPlaced].destination=orders. Such events, published with
     * ApplicationEventPublisher or passed to SpringOutbox.append, are appended in the current transaction.
     */
    private final Map<String, Route> routes = new LinkedHashMap<>();

    /** The broker the relay publishes to. */
    public enum Broker {
        /** Kafka, with the application's spring.kafka.* producer settings. */
        KAFKA,
        /** RabbitMQ, with the application's spring.rabbitmq.* connection settings. */
        RABBITMQ
    }

    /** The outboxes a worker of many outboxes finds while it runs. */
    public static class Discovery {
        /**
         * Relays, by one worker of many outboxes, every schema whose whole name matches this regular expression
         * (e.g. tenant_.*) and that holds the table outbox.table (then unqualified); empty = no discovery.
         */
        private String schemaPattern;
        /** With outbox.discovery.schema-pattern: how often the schemas holding the table are looked up again. */
        private Duration interval = Duration.ofSeconds(30);

        public String getSchemaPattern() {
            return schemaPattern;
        }

        public void setSchemaPattern(String schemaPattern) {
            this.schemaPattern = schemaPattern;
        }

        public Duration getInterval() {
            return interval;
        }

        public void setInterval(Duration interval) {
            this.interval = interval;
        }
    }

    /** How the events are kept in the database. */
    public static class Store {
        /**
         * append-log: an append-only log read by position, with state kept only for retries, dead letters and
         * events in flight; a transaction that holds back vacuum (a long report, an idle session) does not slow
         * its relay down. in-place: one table, each event's row updated as it moves. An in-place table is
         * converted once (PostgresSchema.convertToAppendLog) before it is used as append-log.
         */
        private StoreLayout layout = StoreLayout.APPEND_LOG;

        public StoreLayout getLayout() {
            return layout;
        }

        public void setLayout(StoreLayout layout) {
            this.layout = layout;
        }
    }

    /** Per-key ordering. */
    public static class OrderingProperties {
        /** none: events go out as soon as they are due, in any order; per-key: events of one key reach the broker in append order. */
        private Ordering.Mode mode = Ordering.Mode.NONE;
        /** With per-key ordering, what a dead letter does to the later events of its key: hold-key keeps them back until an operator requeues or purges it; continue goes on. */
        private Ordering.AfterDeadLetter afterDeadLetter = Ordering.AfterDeadLetter.HOLD_KEY;

        public Ordering.Mode getMode() {
            return mode;
        }

        public void setMode(Ordering.Mode mode) {
            this.mode = mode;
        }

        public Ordering.AfterDeadLetter getAfterDeadLetter() {
            return afterDeadLetter;
        }

        public void setAfterDeadLetter(Ordering.AfterDeadLetter afterDeadLetter) {
            this.afterDeadLetter = afterDeadLetter;
        }
    }

    /** The relay of this instance. */
    public static class Relay {
        /** Whether this instance runs the relay, sweeper and cleaner; false for a write-only service whose events another instance relays. */
        private boolean enabled = true;
        /** Relay threads (1-64); each holds one pooled connection while it leases or marks. */
        private int threads = 1;
        /**
         * Events leased per relay tick (1-10000); unset = 1000, or 500 with outbox.ordering.mode=per-key (a batch
         * keeps its keys from the other relays until it is published).
         */
        private Integer batchSize;
        /** How long a batch may wait for the broker's acknowledgements; below outbox.sweeper.lease-timeout. */
        private Duration publishTimeout = Duration.ofSeconds(30);
        /** How long an idle relay waits for a wake-up before polling again. */
        private Duration pollInterval = Duration.ofSeconds(1);
        /** On shutdown, how long batches in flight may take to finish; unfinished events go back to pending. */
        private Duration shutdownTimeout = Duration.ofSeconds(10);
        /**
         * With outbox.tables or outbox.discovery.schema-pattern: the longest wait between two polls of a table
         * that keeps finding nothing (the wait doubles from outbox.relay.poll-interval; a wake-up ends it).
         */
        private Duration maxIdlePollInterval = Duration.ofSeconds(10);

        public Duration getMaxIdlePollInterval() {
            return maxIdlePollInterval;
        }

        public void setMaxIdlePollInterval(Duration maxIdlePollInterval) {
            this.maxIdlePollInterval = maxIdlePollInterval;
        }

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public int getThreads() {
            return threads;
        }

        public void setThreads(int threads) {
            this.threads = threads;
        }

        public Integer getBatchSize() {
            return batchSize;
        }

        public void setBatchSize(Integer batchSize) {
            this.batchSize = batchSize;
        }

        public Duration getPublishTimeout() {
            return publishTimeout;
        }

        public void setPublishTimeout(Duration publishTimeout) {
            this.publishTimeout = publishTimeout;
        }

        public Duration getPollInterval() {
            return pollInterval;
        }

        public void setPollInterval(Duration pollInterval) {
            this.pollInterval = pollInterval;
        }

        public Duration getShutdownTimeout() {
            return shutdownTimeout;
        }

        public void setShutdownTimeout(Duration shutdownTimeout) {
            this.shutdownTimeout = shutdownTimeout;
        }
    }

    /** When failed publishes are retried. */
    public static class Retry {
        /** Delay before an event's first retry. */
        private Duration initialDelay = Duration.ofSeconds(1);
        /** Growth factor between an event's retry delays (at least 1). */
        private double multiplier = 2.0;
        /** Longest delay between an event's retries. */
        private Duration maxDelay = Duration.ofMinutes(5);
        /** Random spread of retry delays, 0 (none) to 1. */
        private double jitter = 0.2;

        public Duration getInitialDelay() {
            return initialDelay;
        }

        public void setInitialDelay(Duration initialDelay) {
            this.initialDelay = initialDelay;
        }

        public double getMultiplier() {
            return multiplier;
        }

        public void setMultiplier(double multiplier) {
            this.multiplier = multiplier;
        }

        public Duration getMaxDelay() {
            return maxDelay;
        }

        public void setMaxDelay(Duration maxDelay) {
            this.maxDelay = maxDelay;
        }

        public double getJitter() {
            return jitter;
        }

        public void setJitter(double jitter) {
            this.jitter = jitter;
        }
    }

    /** The sweeper, which returns the events of a relay that died to pending. */
    public static class Sweeper {
        /** A lease older than this is presumed abandoned and its events go back to pending. */
        private Duration leaseTimeout = Duration.ofMinutes(2);
        /** How often the sweeper looks for abandoned leases. */
        private Duration interval = Duration.ofSeconds(30);

        public Duration getLeaseTimeout() {
            return leaseTimeout;
        }

        public void setLeaseTimeout(Duration leaseTimeout) {
            this.leaseTimeout = leaseTimeout;
        }

        public Duration getInterval() {
            return interval;
        }

        public void setInterval(Duration interval) {
            this.interval = interval;
        }
    }

    /** The cleaner, which deletes old sent events. */
    public static class Cleaner {
        /** Whether this instance deletes old sent events. */
        private boolean enabled = true;
        /** How long sent events are kept. */
        private Duration retention = Duration.ofDays(7);
        /** How often the cleaner runs. */
        private Duration interval = Duration.ofMinutes(5);

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public Duration getRetention() {
            return retention;
        }

        public void setRetention(Duration retention) {
            this.retention = retention;
        }

        public Duration getInterval() {
            return interval;
        }

        public void setInterval(Duration interval) {
            this.interval = interval;
        }
    }

    /** When the outbox health indicator reports DOWN. */
    public static class Health {
        /** DOWN when an event the relay could publish now has waited longer than this; 0s = never. */
        private Duration maxLag = Duration.ofMinutes(5);
        /** DOWN when the broker has failed its health check for longer than this; 0s = at the first failure. */
        private Duration maxBrokerOutage = Duration.ofSeconds(30);
        /** DOWN when a transaction of the database has been open longer than this; 0s = never. */
        private Duration maxXminAge = Duration.ofMinutes(10);

        public Duration getMaxLag() {
            return maxLag;
        }

        public void setMaxLag(Duration maxLag) {
            this.maxLag = maxLag;
        }

        public Duration getMaxBrokerOutage() {
            return maxBrokerOutage;
        }

        public void setMaxBrokerOutage(Duration maxBrokerOutage) {
            this.maxBrokerOutage = maxBrokerOutage;
        }

        public Duration getMaxXminAge() {
            return maxXminAge;
        }

        public void setMaxXminAge(Duration maxXminAge) {
            this.maxXminAge = maxXminAge;
        }
    }

    /** The inbox of the application's listeners (SpringInbox). */
    public static class InboxProperties {
        /** Whether the SpringInbox bean exists and its table is put in place with the outbox's (Flyway, Liquibase or outbox.schema.initialize). */
        private boolean enabled;
        /** The inbox table, "table" or "schema.table": lower-case letters, digits and '_'. */
        private String table = "outbox_inbox";

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public String getTable() {
            return table;
        }

        public void setTable(String table) {
            this.table = table;
        }
    }

    /** Where the outbox sends the events of one application event type. */
    public static class Route {
        /** The Kafka topic or RabbitMQ exchange. Required. */
        private String destination;
        /** The event's key: a Spring expression on the event, e.g. orderId or customer.id; none when unset. */
        private String key;
        /** The CloudEvents type; unset = the event's class name. */
        private String type;
        /** The CloudEvents source; unset = "/" and spring.application.name. */
        private String source;
        /** The RabbitMQ routing key; none when unset. */
        private String routingKey;

        public String getDestination() {
            return destination;
        }

        public void setDestination(String destination) {
            this.destination = destination;
        }

        public String getKey() {
            return key;
        }

        public void setKey(String key) {
            this.key = key;
        }

        public String getType() {
            return type;
        }

        public void setType(String type) {
            this.type = type;
        }

        public String getSource() {
            return source;
        }

        public void setSource(String source) {
            this.source = source;
        }

        public String getRoutingKey() {
            return routingKey;
        }

        public void setRoutingKey(String routingKey) {
            this.routingKey = routingKey;
        }
    }

    /** Creating the outbox table. */
    public static class Schema {
        /**
         * Whether the outbox's own migrations run beside the application's when Flyway is on the classpath
         * (history table outbox_schema_history; outbox_append_log_schema_history for the append-log layout).
         */
        private boolean flyway = true;
        /**
         * Whether the outbox's changelog runs beside the application's when Liquibase is on the classpath
         * (changelog tables outbox_databasechangelog and outbox_databasechangeloglock).
         */
        private boolean liquibase = true;
        /** Without Flyway or Liquibase: whether the table and its indexes are created at start when missing. */
        private boolean initialize;

        public boolean isFlyway() {
            return flyway;
        }

        public void setFlyway(boolean flyway) {
            this.flyway = flyway;
        }

        public boolean isLiquibase() {
            return liquibase;
        }

        public void setLiquibase(boolean liquibase) {
            this.liquibase = liquibase;
        }

        public boolean isInitialize() {
            return initialize;
        }

        public void setInitialize(boolean initialize) {
            this.initialize = initialize;
        }
    }

    public String getTable() {
        return table;
    }

    public void setTable(String table) {
        this.table = table;
    }

    public CompletionMode getCompletionMode() {
        return completionMode;
    }

    public void setCompletionMode(CompletionMode completionMode) {
        this.completionMode = completionMode;
    }

    public WakeUpMode getWakeUp() {
        return wakeUp;
    }

    public void setWakeUp(WakeUpMode wakeUp) {
        this.wakeUp = wakeUp;
    }

    public Broker getBroker() {
        return broker;
    }

    public void setBroker(Broker broker) {
        this.broker = broker;
    }

    public List<String> getTables() {
        return tables;
    }

    public void setTables(List<String> tables) {
        this.tables = new ArrayList<>(tables);
    }

    public Discovery getDiscovery() {
        return discovery;
    }

    public Store getStore() {
        return store;
    }

    public OrderingProperties getOrdering() {
        return ordering;
    }

    public Relay getRelay() {
        return relay;
    }

    public Retry getRetry() {
        return retry;
    }

    public Sweeper getSweeper() {
        return sweeper;
    }

    public Cleaner getCleaner() {
        return cleaner;
    }

    public Health getHealth() {
        return health;
    }

    public Schema getSchema() {
        return schema;
    }

    public InboxProperties getInbox() {
        return inbox;
    }

    public Map<String, Route> getRoutes() {
        return routes;
    }

    /** The store's configuration, shared by the appending side and the relay. */
    public PostgresOutboxConfig postgres() {
        return PostgresOutboxConfig.builder()
                .tableName(table)
                .completionMode(completionMode)
                .wakeUpMode(wakeUp)
                .ordering(ordering())
                .layout(store.layout)
                .build();
    }

    /** Whether the relay is a worker of many outboxes: outbox.tables or outbox.discovery.schema-pattern is set. */
    public boolean manyOutboxes() {
        return !tables.isEmpty() || hasSchemaPattern();
    }

    private boolean hasSchemaPattern() {
        return discovery.schemaPattern != null && !discovery.schemaPattern.isBlank();
    }

    /**
     * The outboxes of the worker of many outboxes: the listed tables, or the discovery rule, each with the
     * settings of {@link #postgres()}.
     *
     * @throws IllegalStateException when neither outbox.tables nor outbox.discovery.schema-pattern is set
     */
    public OutboxTables outboxTables() {
        if (hasSchemaPattern()) {
            return OutboxTables.discovered(Pattern.compile(discovery.schemaPattern.strip()), postgres());
        }
        if (tables.isEmpty()) {
            throw new IllegalStateException("neither outbox.tables nor outbox.discovery.schema-pattern is set");
        }
        return OutboxTables.listed(tables.stream()
                .map(table -> postgres().toBuilder().tableName(table.strip()).build())
                .toArray(PostgresOutboxConfig[]::new));
    }

    /** The discovery interval and the idle polling bound of the worker of many outboxes. */
    public MultiOutboxConfig multiOutboxConfig() {
        return MultiOutboxConfig.builder()
                .discoveryInterval(discovery.interval)
                .maxIdlePollInterval(relay.maxIdlePollInterval)
                .build();
    }

    /** The ordering of the store and the relay. */
    public Ordering ordering() {
        return new Ordering(ordering.mode, ordering.afterDeadLetter);
    }

    /** The relay's batch size: the one set, or the default of the ordering. */
    private int batchSize() {
        return relay.batchSize != null ? relay.batchSize : RelayConfig.defaultBatchSize(ordering());
    }

    /** The inbox's configuration. */
    public PostgresInboxConfig inboxConfig() {
        return PostgresInboxConfig.builder().tableName(inbox.table).build();
    }

    /** The loops' configuration. */
    public OutboxWorkerConfig worker() {
        return OutboxWorkerConfig.builder()
                .relay(new RelayConfig(batchSize(), relay.publishTimeout, ordering()))
                .relayThreads(relay.threads)
                .pollInterval(relay.pollInterval)
                .shutdownTimeout(relay.shutdownTimeout)
                .retryPolicy(RetryPolicy.builder()
                        .initialDelay(retry.initialDelay)
                        .multiplier(retry.multiplier)
                        .maxDelay(retry.maxDelay)
                        .jitter(retry.jitter)
                        .build())
                .sweeper(new SweeperConfig(
                        sweeper.leaseTimeout,
                        SweeperConfig.ofDefaults().chunkSize(),
                        SweeperConfig.ofDefaults().maxChunksPerTick()))
                .sweepInterval(sweeper.interval)
                .cleanerEnabled(cleaner.enabled)
                .cleaner(new CleanerConfig(
                        cleaner.retention,
                        CleanerConfig.ofDefaults().chunkSize(),
                        CleanerConfig.ofDefaults().maxChunksPerTick()))
                .cleanInterval(cleaner.interval)
                .maxBrokerOutage(health.maxBrokerOutage)
                .build();
    }

    /** The readiness thresholds of the database signals. */
    public HealthConfig healthConfig() {
        return new HealthConfig(health.maxLag, health.maxXminAge, Optional.empty());
    }

    @Override
    public boolean supports(Class<?> type) {
        return OutboxProperties.class.isAssignableFrom(type);
    }

    /**
     * Checks every value before anything is built. Each error names the property as it is typed
     * ({@code outbox.relay.batch-size}) and the value as it would be written ({@code 10s}, {@code per-key}).
     */
    @Override
    public void validate(Object target, Errors errors) {
        OutboxProperties p = (OutboxProperties) target;
        if (p.table == null || !TABLE.matcher(p.table).matches()) {
            reject(
                    errors,
                    "outbox.table",
                    "must be table or schema.table of lower-case letters, digits and '_', was '" + p.table + "'");
        }
        OutboxesValidation.validate(p, errors);
        if (p.inbox.table == null || !TABLE.matcher(p.inbox.table).matches()) {
            reject(
                    errors,
                    "outbox.inbox.table",
                    "must be table or schema.table of lower-case letters, digits and '_', was '" + p.inbox.table + "'");
        }
        if (p.relay.threads < 1 || p.relay.threads > OutboxWorkerConfig.MAX_RELAY_THREADS) {
            reject(
                    errors,
                    "outbox.relay.threads",
                    "must be between 1 and " + OutboxWorkerConfig.MAX_RELAY_THREADS + ", was " + p.relay.threads);
        }
        if (p.relay.batchSize != null && (p.relay.batchSize < 1 || p.relay.batchSize > RelayConfig.MAX_BATCH_SIZE)) {
            reject(
                    errors,
                    "outbox.relay.batch-size",
                    "must be between 1 and " + RelayConfig.MAX_BATCH_SIZE + ", was " + p.relay.batchSize);
        }
        positive(errors, "outbox.relay.publish-timeout", p.relay.publishTimeout);
        positive(errors, "outbox.relay.poll-interval", p.relay.pollInterval);
        positive(errors, "outbox.retry.initial-delay", p.retry.initialDelay);
        positive(errors, "outbox.sweeper.interval", p.sweeper.interval);
        positive(errors, "outbox.cleaner.interval", p.cleaner.interval);
        positive(errors, "outbox.cleaner.retention", p.cleaner.retention);
        notNegative(errors, "outbox.relay.shutdown-timeout", p.relay.shutdownTimeout);
        notNegative(errors, "outbox.health.max-lag", p.health.maxLag);
        notNegative(errors, "outbox.health.max-broker-outage", p.health.maxBrokerOutage);
        notNegative(errors, "outbox.health.max-xmin-age", p.health.maxXminAge);
        if (p.retry.multiplier < 1) {
            reject(errors, "outbox.retry.multiplier", "must be at least 1, was " + p.retry.multiplier);
        }
        if (p.retry.jitter < 0 || p.retry.jitter > 1) {
            reject(errors, "outbox.retry.jitter", "must be between 0 and 1, was " + p.retry.jitter);
        }
        if (p.retry.maxDelay != null
                && p.retry.initialDelay != null
                && p.retry.maxDelay.compareTo(p.retry.initialDelay) < 0) {
            reject(
                    errors,
                    "outbox.retry.max-delay",
                    "must be at least outbox.retry.initial-delay (" + typed(p.retry.initialDelay) + "), was "
                            + typed(p.retry.maxDelay));
        }
        if (p.sweeper.leaseTimeout != null
                && p.relay.publishTimeout != null
                && p.sweeper.leaseTimeout.compareTo(p.relay.publishTimeout) <= 0) {
            reject(
                    errors,
                    "outbox.sweeper.lease-timeout",
                    "must be longer than outbox.relay.publish-timeout (" + typed(p.relay.publishTimeout) + "), was "
                            + typed(p.sweeper.leaseTimeout)
                            + ": otherwise the sweeper reclaims batches still being published and they go out twice");
        }
    }

    /** An error of one property, as a global error: Spring Boot would show a field error under its Java name. */
    static void reject(Errors errors, String property, String reason) {
        errors.reject(property, property + " " + reason);
    }

    static void positive(Errors errors, String property, Duration value) {
        if (value == null || value.isZero() || value.isNegative()) {
            reject(errors, property, "must be a positive duration, was " + typed(value));
        }
    }

    private static void notNegative(Errors errors, String property, Duration value) {
        if (value == null || value.isNegative()) {
            reject(errors, property, "must not be negative, was " + typed(value));
        }
    }

    /** A duration as a property would give it ({@code 10s}), not as {@code Duration.toString} does ({@code PT10S}). */
    private static String typed(Duration value) {
        if (value == null) {
            return "nothing";
        }
        return Durations.format(value);
    }
}
