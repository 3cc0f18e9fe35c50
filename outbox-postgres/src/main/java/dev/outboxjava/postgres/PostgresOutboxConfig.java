package dev.outboxjava.postgres;

import dev.outboxjava.core.InvalidConfigurationException;
import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.postgres.internal.Identifiers;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Settings of a PostgreSQL outbox: which table, which notification channel, how the relay is woken
 * and what happens to published rows. Immutable; build with {@link #builder()} or take
 * {@link #ofDefaults()}.
 *
 * <p>Defaults:
 * <ul>
 *   <li>table name {@value #DEFAULT_TABLE_NAME} (in the connection's {@code search_path} schema)</li>
 *   <li>notify channel: derived from the table name — {@code schema_table} for a qualified table
 *       ({@code table} alone when that would exceed 63 characters), the table name otherwise; so
 *       {@value #DEFAULT_TABLE_NAME} for the default table</li>
 *   <li>wake-up mode {@link WakeUpMode#NOTIFY_AFTER_COMMIT}, at most one notification per 5 ms
 *       ({@link OutboxNotifier#DEFAULT_MINIMUM_INTERVAL})</li>
 *   <li>completion mode {@link CompletionMode#KEEP_SENT}</li>
 *   <li>maximum pool size {@value #DEFAULT_MAXIMUM_POOL_SIZE} (only when the store opens its own pool)</li>
 *   <li>layout {@link StoreLayout#APPEND_LOG}</li>
 * </ul>
 *
 * <p>Names are validated when {@link Builder#build()} runs, before any SQL is built: a table name
 * must be a lower-case PostgreSQL identifier ({@code [a-z_][a-z0-9_]*}, at most 42 characters in the
 * append-only layout, 48 in place),
 * optionally qualified by a schema; anything else — {@code outbox; drop table orders}, quotes,
 * upper case — is refused with an {@link InvalidConfigurationException} naming the setting.
 */
public final class PostgresOutboxConfig {

    /** Default outbox table. */
    public static final String DEFAULT_TABLE_NAME = "outbox_events";
    /** Default wake-up mode. */
    public static final WakeUpMode DEFAULT_WAKE_UP_MODE = WakeUpMode.NOTIFY_AFTER_COMMIT;
    /** Default completion mode. */
    public static final CompletionMode DEFAULT_COMPLETION_MODE = CompletionMode.KEEP_SENT;
    /** Default layout. */
    public static final StoreLayout DEFAULT_LAYOUT = StoreLayout.APPEND_LOG;
    /** Longest table name (without its schema) of the append-only layout ({@link StoreLayout#APPEND_LOG}). */
    public static final int MAX_APPEND_LOG_TABLE_LENGTH = 42;
    /** Default size of the connection pool the store opens itself (from a JDBC URL). */
    public static final int DEFAULT_MAXIMUM_POOL_SIZE = 4;

    private final Identifiers.TableName table;
    private final String notifyChannel;
    private final WakeUpMode wakeUpMode;
    private final Duration notifyMinimumInterval;
    private final CompletionMode completionMode;
    private final int maximumPoolSize;
    private final Ordering ordering;
    private final StoreLayout layout;

    private PostgresOutboxConfig(Builder builder) {
        this.table = Identifiers.tableName("tableName", builder.tableName);
        this.notifyChannel = builder.notifyChannel != null
                ? Identifiers.channel("notifyChannel", builder.notifyChannel)
                : defaultChannel(table);
        this.wakeUpMode = builder.wakeUpMode;
        if (builder.notifyMinimumInterval.isNegative()) {
            throw new InvalidConfigurationException(
                    "notifyMinimumInterval",
                    "must be zero or a positive duration, was " + builder.notifyMinimumInterval);
        }
        this.notifyMinimumInterval = builder.notifyMinimumInterval;
        this.completionMode = builder.completionMode;
        if (builder.maximumPoolSize < 1) {
            throw new InvalidConfigurationException(
                    "maximumPoolSize", "must be at least 1, was " + builder.maximumPoolSize);
        }
        this.maximumPoolSize = builder.maximumPoolSize;
        this.ordering = builder.ordering;
        this.layout = builder.layout;
        if (layout == StoreLayout.APPEND_LOG && table.table().length() > MAX_APPEND_LOG_TABLE_LENGTH) {
            throw new InvalidConfigurationException(
                    "tableName",
                    "'" + table.table() + "' has " + table.table().length() + " characters; the append-only layout"
                            + " takes at most " + MAX_APPEND_LOG_TABLE_LENGTH + " (the names of its side tables and"
                            + " indexes add up to 21 to it, and PostgreSQL cuts names at 63)");
        }
    }

    /** The defaults listed in the class description. */
    public static PostgresOutboxConfig ofDefaults() {
        return builder().build();
    }

    /** A builder starting from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from this configuration. */
    public Builder toBuilder() {
        Builder builder = new Builder()
                .tableName(tableName())
                .wakeUpMode(wakeUpMode)
                .completionMode(completionMode)
                .maximumPoolSize(maximumPoolSize)
                .ordering(ordering)
                .notifyMinimumInterval(notifyMinimumInterval)
                .layout(layout);
        builder.notifyChannel = notifyChannel;
        return builder;
    }

    /** The table name as configured, e.g. {@code outbox_events} or {@code billing.outbox_events}. */
    public String tableName() {
        return table.display();
    }

    /** The schema part of the table name, when qualified. */
    public Optional<String> schemaName() {
        return table.schema();
    }

    /** The LISTEN/NOTIFY channel the trigger notifies and the listener listens on. */
    public String notifyChannel() {
        return notifyChannel;
    }

    /** How an idle relay is woken. */
    public WakeUpMode wakeUpMode() {
        return wakeUpMode;
    }

    /**
     * The shortest time between two notifications of the {@link TransactionalOutbox}'s notifier
     * ({@link WakeUpMode#NOTIFY_AFTER_COMMIT}); see {@link OutboxNotifier.Builder#minimumInterval}.
     */
    public Duration notifyMinimumInterval() {
        return notifyMinimumInterval;
    }

    /** What happens to a row once its publish is acknowledged. */
    public CompletionMode completionMode() {
        return completionMode;
    }

    /** Whether events of one key are leased in order (the relay must use the same ordering). */
    public Ordering ordering() {
        return ordering;
    }

    /** How the events are kept in the database: {@link StoreLayout#APPEND_LOG} unless chosen otherwise. */
    public StoreLayout layout() {
        return layout;
    }

    /** Size of the pool the store opens itself from a JDBC URL. */
    public int maximumPoolSize() {
        return maximumPoolSize;
    }

    /** For the implementation: the validated table name. */
    Identifiers.TableName table() {
        return table;
    }

    @Override
    public String toString() {
        return "PostgresOutboxConfig[tableName=" + tableName() + ", notifyChannel=" + notifyChannel
                + ", wakeUpMode=" + wakeUpMode + ", notifyMinimumInterval=" + notifyMinimumInterval
                + ", completionMode=" + completionMode + ", maximumPoolSize=" + maximumPoolSize
                + ", ordering=" + ordering + ", layout=" + layout + "]";
    }

    private static String defaultChannel(Identifiers.TableName table) {
        String qualified =
                table.schema().map(schema -> schema + "_" + table.table()).orElse(table.table());
        return qualified.length() <= Identifiers.MAX_IDENTIFIER_LENGTH ? qualified : table.table();
    }

    /** Builds a {@link PostgresOutboxConfig}; every setting starts at its default. */
    public static final class Builder {
        private String tableName = DEFAULT_TABLE_NAME;
        private String notifyChannel;
        private WakeUpMode wakeUpMode = DEFAULT_WAKE_UP_MODE;
        private Duration notifyMinimumInterval = OutboxNotifier.DEFAULT_MINIMUM_INTERVAL;
        private CompletionMode completionMode = DEFAULT_COMPLETION_MODE;
        private int maximumPoolSize = DEFAULT_MAXIMUM_POOL_SIZE;
        private Ordering ordering = Ordering.none();
        private StoreLayout layout = DEFAULT_LAYOUT;

        private Builder() {}

        /**
         * The outbox table, {@code table} or {@code schema.table}. Default {@value #DEFAULT_TABLE_NAME}.
         * Lower-case letters, digits and '_' only; validated by {@link #build()}.
         */
        public Builder tableName(String value) {
            this.tableName = Objects.requireNonNull(value, "tableName");
            return this;
        }

        /**
         * The notification channel. Default: derived from the table name (see the class description).
         * Lower-case letters, digits and '_' only, at most 63 characters.
         */
        public Builder notifyChannel(String value) {
            this.notifyChannel = Objects.requireNonNull(value, "notifyChannel");
            return this;
        }

        /** How an idle relay is woken. Default {@link WakeUpMode#NOTIFY_AFTER_COMMIT}. */
        public Builder wakeUpMode(WakeUpMode value) {
            this.wakeUpMode = Objects.requireNonNull(value, "wakeUpMode");
            return this;
        }

        /**
         * With {@link WakeUpMode#NOTIFY_AFTER_COMMIT}: the shortest time between two notifications the
         * {@link TransactionalOutbox} sends (commits in between share the next one). Default 5 ms.
         * Each notification is a small transaction and wakes every listening relay: on the 2-core
         * benchmark machine, saturated producers lost about 2–5 % of their throughput to one per 5 ms.
         * Longer costs less and adds up to that much latency to an event under load; zero sends one
         * per database round trip.
         */
        public Builder notifyMinimumInterval(Duration value) {
            this.notifyMinimumInterval = Objects.requireNonNull(value, "notifyMinimumInterval");
            return this;
        }

        /** Keep published rows as sent, or delete them at once. Default {@link CompletionMode#KEEP_SENT}. */
        public Builder completionMode(CompletionMode value) {
            this.completionMode = Objects.requireNonNull(value, "completionMode");
            return this;
        }

        /**
         * Size of the HikariCP pool the store opens when created from a JDBC URL (ignored when you pass
         * your own {@code DataSource}). Default {@value #DEFAULT_MAXIMUM_POOL_SIZE}; at least 1.
         */
        public Builder maximumPoolSize(int value) {
            this.maximumPoolSize = value;
            return this;
        }

        /**
         * Per-key ordering: with {@link Ordering.Mode#PER_KEY} a lease takes, per key, only the events
         * no earlier event of the key holds back, and never an event whose transaction is younger than
         * an open one (commit-order guard). Default {@link Ordering#none()}. The relay's
         * {@code RelayConfig} must carry the same ordering.
         */
        public Builder ordering(Ordering value) {
            this.ordering = Objects.requireNonNull(value, "ordering");
            return this;
        }

        /**
         * How the events are kept. Default {@link StoreLayout#APPEND_LOG}. The two layouts' tables differ:
         * create them with the layout's migrations ({@link PostgresSchema}), and convert an existing in-place
         * table with {@link PostgresSchema#convertToAppendLog}.
         */
        public Builder layout(StoreLayout value) {
            this.layout = Objects.requireNonNull(value, "layout");
            return this;
        }

        /**
         * Validates and creates the configuration.
         *
         * @throws InvalidConfigurationException naming the setting when a value is unusable
         */
        public PostgresOutboxConfig build() {
            return new PostgresOutboxConfig(this);
        }
    }
}
