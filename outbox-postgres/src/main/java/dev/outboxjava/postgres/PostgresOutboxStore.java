package dev.outboxjava.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.InvalidConfigurationException;
import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.OutboxException;
import dev.outboxjava.core.port.ActiveLease;
import dev.outboxjava.core.port.Attempt;
import dev.outboxjava.core.port.AuditEntry;
import dev.outboxjava.core.port.Backlog;
import dev.outboxjava.core.port.DeadLetterFilter;
import dev.outboxjava.core.port.DeadLetterMark;
import dev.outboxjava.core.port.DeadLetterSelector;
import dev.outboxjava.core.port.DestinationCounts;
import dev.outboxjava.core.port.EventEdit;
import dev.outboxjava.core.port.EventPage;
import dev.outboxjava.core.port.HeldKey;
import dev.outboxjava.core.port.MarkResult;
import dev.outboxjava.core.port.OperatorStore;
import dev.outboxjava.core.port.OutboxStore;
import dev.outboxjava.core.port.RetryMark;
import dev.outboxjava.postgres.internal.AttemptHistory;
import dev.outboxjava.postgres.internal.Failures;
import dev.outboxjava.postgres.internal.Layout;
import dev.outboxjava.postgres.internal.LayoutProbe;
import dev.outboxjava.postgres.internal.OperatorRepairs;
import dev.outboxjava.postgres.internal.appendlog.AppendLogLayout;
import dev.outboxjava.postgres.internal.inplace.InPlaceLayout;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link OutboxStore} on PostgreSQL (14+), through pgjdbc and jOOQ.
 *
 * <p>Every method is one short statement in auto-commit (purge: a few), so no transaction is ever
 * held open — least of all across a broker call. Leasing is one
 * {@code UPDATE … WHERE id IN (SELECT … FOR UPDATE SKIP LOCKED LIMIT ?) RETURNING …}; each mark kind
 * is one statement per batch, fenced by the lease id. All times come from the caller. In the default
 * layout every statement is built with jOOQ's DSL: the relay's hot path (lease and marks) is rendered
 * once per store and run as pgjdbc prepared statements, the housekeeping and operator queries run
 * through jOOQ.
 *
 * <pre>{@code
 * PostgresOutboxConfig config = PostgresOutboxConfig.ofDefaults();
 * try (PostgresOutboxStore store = PostgresOutboxStore.create(dataSource, config)) {
 *     store.ensureSchema();
 *     List<OutboxEvent> batch = store.lease(UUID.randomUUID(), 100, clock.instant());
 * }
 * }</pre>
 *
 * Appending is done in the caller's transaction with {@link OutboxWriter} (see {@link #writer()}).
 * Failures are {@link dev.outboxjava.core.OutboxStoreException}s naming the table and the attempt.
 * Thread-safe.
 */
public final class PostgresOutboxStore implements OutboxStore, OperatorStore, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(PostgresOutboxStore.class);

    private final PostgresOutboxConfig config;
    private final DataSource dataSource;
    private final Optional<HikariDataSource> ownedPool;
    private final DSLContext dsl;
    private final LayoutProbe layoutProbe;
    /** Whether the first lease has looked for the indexes it relies on (it warns once if they are missing). */
    private final AtomicBoolean perKeyIndexesChecked = new AtomicBoolean();

    private final TransactionalOutbox transactional;
    /** The statements of the configured layout, chosen once. */
    private final Layout layout;

    private final OperatorRepairs repairs;
    private final AttemptHistory attemptHistory;
    /** Whether the missing attempts table has been reported (once per store). */
    private final AtomicBoolean missingAttemptsReported = new AtomicBoolean();

    private PostgresOutboxStore(
            DataSource dataSource, Optional<HikariDataSource> ownedPool, PostgresOutboxConfig config) {
        this.config = config;
        this.dataSource = dataSource;
        this.ownedPool = ownedPool;
        // No jOOQ debug logging of every statement: this sits on the relay's hot path.
        this.dsl = DSL.using(dataSource, SQLDialect.POSTGRES, new Settings().withExecuteLogging(false));
        this.layoutProbe = new LayoutProbe(config.table(), config.layout());
        this.transactional = TransactionalOutbox.create(dataSource, config);
        this.layout = config.layout() == StoreLayout.APPEND_LOG
                ? new AppendLogLayout(config.table(), config.completionMode(), config.ordering())
                : new InPlaceLayout(config.table(), config.completionMode(), config.ordering());
        this.repairs = layout.repairs();
        this.attemptHistory = layout.attempts();
    }

    /**
     * A store over your {@link DataSource} (ideally a pool). The store does not close it.
     *
     * @param dataSource connections to the database holding the outbox table
     * @param config     table name, completion mode, ...
     */
    public static PostgresOutboxStore create(DataSource dataSource, PostgresOutboxConfig config) {
        return new PostgresOutboxStore(
                Objects.requireNonNull(dataSource, "dataSource"),
                Optional.empty(),
                Objects.requireNonNull(config, "config"));
    }

    /**
     * A store with its own HikariCP pool ({@link PostgresOutboxConfig#maximumPoolSize()} connections),
     * closed by {@link #close()}.
     *
     * @param jdbcUrl e.g. {@code jdbc:postgresql://db:5432/orders}
     */
    public static PostgresOutboxStore create(
            String jdbcUrl, String user, String password, PostgresOutboxConfig config) {
        Objects.requireNonNull(config, "config");
        if (jdbcUrl == null || !jdbcUrl.startsWith("jdbc:postgresql:")) {
            throw new InvalidConfigurationException(
                    "jdbcUrl", "must be a PostgreSQL JDBC URL starting with " + "jdbc:postgresql:, was " + jdbcUrl);
        }
        HikariConfig hikari = new HikariConfig();
        hikari.setJdbcUrl(jdbcUrl);
        hikari.setUsername(Objects.requireNonNull(user, "user"));
        hikari.setPassword(Objects.requireNonNull(password, "password"));
        hikari.setMaximumPoolSize(config.maximumPoolSize());
        hikari.setMinimumIdle(Math.min(1, config.maximumPoolSize()));
        hikari.setPoolName("outbox-" + config.tableName());
        // Start even while the database is down: the relay backs off and retries, as with any outage.
        hikari.setInitializationFailTimeout(-1);
        hikari.addDataSourceProperty("ApplicationName", "outbox-" + config.tableName());
        HikariDataSource pool = new HikariDataSource(hikari);
        return new PostgresOutboxStore(pool, Optional.of(pool), config);
    }

    /** The configuration this store runs with. */
    public PostgresOutboxConfig config() {
        return config;
    }

    /** The data source the store uses (its own pool when created from a JDBC URL). */
    public DataSource dataSource() {
        return dataSource;
    }

    /** A writer appending to this store's table in the caller's transaction. */
    public OutboxWriter writer() {
        return OutboxWriter.create(config);
    }

    /**
     * The helper running domain work and its events in one transaction on this store's data source
     * (one per store: its notifier is closed with the store).
     */
    public TransactionalOutbox transactional() {
        return transactional;
    }

    /** Creates the table, indexes and trigger if missing; see {@link PostgresSchema#apply}. */
    public void ensureSchema() {
        PostgresSchema.apply(dataSource, config);
    }

    @Override
    public List<OutboxEvent> lease(UUID leaseId, int limit, Instant now) {
        Objects.requireNonNull(leaseId, "leaseId");
        Objects.requireNonNull(now, "now");
        if (limit <= 0) {
            return List.of();
        }
        return withConnection("lease up to " + limit + " events", connection -> {
            warnOnceOfMissingPerKeyIndexes(connection);
            return layout.lease(connection, leaseId, limit, now);
        });
    }

    /**
     * At the first lease, warns if the table lacks the indexes the layout's lease relies on (the per-key
     * indexes in place; no query when there are none to have): the lease still works without them, only
     * slower and slower as the table grows, so nothing else would tell.
     */
    private void warnOnceOfMissingPerKeyIndexes(Connection connection) {
        if (perKeyIndexesChecked.get()) {
            return;
        }
        try {
            List<String> missing = layout.missingIndexes(connection);
            if (perKeyIndexesChecked.compareAndSet(false, true) && !missing.isEmpty()) {
                log.warn("outbox table {}: {}", config.tableName(), missingIndexesAdvice(missing));
            }
        } catch (SQLException e) {
            // the lease on the same connection reports a real outage; this check is tried again next lease
            log.debug(
                    "outbox table {}: could not look for the per-key indexes; trying again at the next lease",
                    config.tableName(),
                    e);
        }
    }

    private String missingIndexesAdvice(List<String> missing) {
        return "per-key ordering is on but the table lacks index(es) " + String.join(", ", missing)
                + ", so every lease probes its candidates' keys without an index and slows down as the table "
                + "grows. Create them with the statements of PostgresSchema.ddl(config) for this configuration "
                + "(with Flyway, add the location " + PostgresSchema.PER_KEY_MIGRATIONS_LOCATION + "), or call "
                + "store.ensureSchema()";
    }

    @Override
    public MarkResult markPublished(UUID leaseId, Collection<UUID> eventIds, Instant now) {
        Objects.requireNonNull(now, "now");
        if (eventIds.isEmpty()) {
            return MarkResult.empty(); // no connection taken for nothing
        }
        return withConnection(
                "mark " + eventIds.size() + " events published under lease " + leaseId,
                connection -> layout.published(connection, Objects.requireNonNull(leaseId, "leaseId"), eventIds, now));
    }

    @Override
    public MarkResult markRetry(UUID leaseId, Collection<RetryMark> retryMarks, Instant now) {
        if (retryMarks.isEmpty()) {
            return MarkResult.empty(); // no connection taken for nothing
        }
        Map<UUID, String> errors = new java.util.HashMap<>();
        retryMarks.forEach(mark -> errors.put(mark.eventId(), mark.error()));
        return withConnection(
                "mark " + retryMarks.size() + " events for retry under lease " + leaseId,
                connection -> withAttempts(
                        connection,
                        leaseId,
                        errors,
                        Attempt.Outcome.RETRY,
                        now,
                        () -> layout.retry(connection, Objects.requireNonNull(leaseId, "leaseId"), retryMarks)));
    }

    @Override
    public MarkResult markDeadLettered(UUID leaseId, Collection<DeadLetterMark> deadLetterMarks, Instant now) {
        if (deadLetterMarks.isEmpty()) {
            return MarkResult.empty(); // no connection taken for nothing
        }
        Map<UUID, String> errors = new java.util.HashMap<>();
        deadLetterMarks.forEach(mark -> errors.put(mark.eventId(), mark.error()));
        return withConnection(
                "dead-letter " + deadLetterMarks.size() + " events under lease " + leaseId,
                connection -> withAttempts(
                        connection,
                        leaseId,
                        errors,
                        Attempt.Outcome.DEAD_LETTER,
                        now,
                        () -> layout.deadLettered(
                                connection, Objects.requireNonNull(leaseId, "leaseId"), deadLetterMarks)));
    }

    /**
     * Runs a failure mark and records the failed attempts it marked, in one transaction. Without the
     * attempts table (its migration not run) the mark runs alone, with a warning: a missing history
     * must not stop the relay from marking failures.
     */
    private MarkResult withAttempts(
            Connection connection,
            UUID leaseId,
            Map<UUID, String> errors,
            Attempt.Outcome outcome,
            Instant now,
            StoreCall<MarkResult> mark)
            throws SQLException {
        connection.setAutoCommit(false);
        try {
            MarkResult result = mark.call();
            attemptHistory.record(connection, leaseId, errors, result.marked(), outcome, now);
            connection.commit();
            return result;
        } catch (SQLException | RuntimeException e) {
            try {
                connection.rollback();
            } catch (SQLException rollbackFailure) {
                e.addSuppressed(rollbackFailure); // a broken connection: the mark's own failure is the news
                throw e;
            }
            if (!AttemptHistory.isMissingTable(e)) {
                throw e;
            }
            reportMissingAttemptsTable(e);
            connection.setAutoCommit(true);
            return mark.call();
        } finally {
            connection.setAutoCommit(true);
        }
    }

    private void reportMissingAttemptsTable(Exception e) {
        if (missingAttemptsReported.compareAndSet(false, true)) {
            log.warn(
                    "outbox table {}: the failed attempts are not recorded: {} ({}). Create it with "
                            + "store.ensureSchema() or the migrations in {}",
                    config.tableName(),
                    attemptHistory.tableName(),
                    e.getMessage(),
                    PostgresSchema.OPERATOR_MIGRATIONS_LOCATION);
        }
    }

    /** Runs a deletion of attempts before their events go; skipped (with a warning) without the table. */
    private void deleteAttempts(StoreCall<Integer> deletion) throws SQLException {
        try {
            deletion.call();
        } catch (RuntimeException e) {
            if (!AttemptHistory.isMissingTable(e)) {
                throw e;
            }
            reportMissingAttemptsTable(e);
        }
    }

    @Override
    public MarkResult release(UUID leaseId, Collection<UUID> eventIds, Instant now) {
        if (eventIds.isEmpty()) {
            return MarkResult.empty(); // no connection taken for nothing
        }
        return withConnection(
                "release " + eventIds.size() + " events of lease " + leaseId,
                connection -> layout.released(connection, Objects.requireNonNull(leaseId, "leaseId"), eventIds));
    }

    @Override
    public int sweepExpiredLeases(Instant leasedBefore, int limit) {
        Objects.requireNonNull(leasedBefore, "leasedBefore");
        if (limit <= 0) {
            return 0;
        }
        return withConnection(
                "sweep up to " + limit + " expired leases",
                connection -> layout.sweep(connection, leasedBefore, limit));
    }

    @Override
    public int cleanUp(Instant sentBefore, int limit) {
        Objects.requireNonNull(sentBefore, "sentBefore");
        if (limit <= 0) {
            return 0;
        }
        run("delete the failed attempts of up to " + limit + " sent events", () -> {
            deleteAttempts(() -> attemptHistory.deleteOfSentBefore(dsl, sentBefore, limit));
            // the attempts of events deleted at publication (delete-on-publish mode) have no sent row to go with
            deleteAttempts(() -> attemptHistory.deleteOrphansBefore(dsl, sentBefore, limit));
            return null;
        });
        return withConnection(
                "delete up to " + limit + " sent events", connection -> layout.cleanUp(connection, sentBefore, limit));
    }

    @Override
    public Map<EventStatus, Long> countByStatus() {
        return withConnection("count events by status", layout::countByStatus);
    }

    @Override
    public Optional<Instant> oldestPendingCreatedAt() {
        return withConnection("find the oldest pending event", layout::oldestPendingCreatedAt);
    }

    @Override
    public Backlog backlog(Instant now) {
        return withConnection(
                "count the pending events by what they wait for", connection -> layout.backlog(connection, now));
    }

    @Override
    public Optional<OutboxEvent> find(UUID eventId) {
        Objects.requireNonNull(eventId, "eventId");
        return withConnection("find event " + eventId, connection -> layout.find(connection, eventId));
    }

    @Override
    public List<OutboxEvent> listDeadLetters(int offset, int limit) {
        if (offset < 0 || limit < 0) {
            throw new IllegalArgumentException(
                    "offset and limit must not be negative, were " + offset + " and " + limit);
        }
        if (limit == 0) {
            return List.of();
        }
        return withConnection("list dead letters", connection -> layout.deadLetters(connection, offset, limit));
    }

    @Override
    public List<OutboxEvent> listRetrying(int offset, int limit) {
        if (offset < 0 || limit < 0) {
            throw new IllegalArgumentException(
                    "offset and limit must not be negative, were " + offset + " and " + limit);
        }
        if (limit == 0) {
            return List.of();
        }
        return withConnection(
                "list events waiting for a retry", connection -> layout.retrying(connection, offset, limit));
    }

    /** How many events wait for a retry (the whole of what {@link #listRetrying} pages through). */
    public long countRetrying() {
        return withConnection("count events waiting for a retry", layout::countRetrying);
    }

    /**
     * How many events {@link #purge} would delete now: in {@code status}, created before
     * {@code createdBefore}. Deletes nothing.
     */
    public long countPurgeable(EventStatus status, Instant createdBefore) {
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(createdBefore, "createdBefore");
        return withConnection(
                "count " + status.databaseValue() + " events to purge",
                connection -> layout.countCreatedBefore(connection, status, createdBefore));
    }

    @Override
    public int requeueDeadLetters(DeadLetterSelector selector, Instant now) {
        Objects.requireNonNull(selector, "selector");
        Objects.requireNonNull(now, "now");
        return withConnection(
                "requeue dead letters (" + selector + ")", connection -> layout.requeue(connection, selector, now));
    }

    @Override
    public long purge(EventStatus status, Instant createdBefore) {
        Objects.requireNonNull(createdBefore, "createdBefore");
        if (!status.isTerminal()) {
            throw new InvalidConfigurationException(
                    "status", "only terminal events (sent, failed) can be purged, " + "not " + status);
        }
        run("delete the failed attempts of the " + status.databaseValue() + " events to purge", () -> {
            deleteAttempts(() -> attemptHistory.deleteOfPurged(dsl, status, createdBefore));
            return null;
        });
        return withConnection(
                "purge " + status.databaseValue() + " events",
                connection -> layout.purge(connection, status, createdBefore));
    }

    @Override
    public EventPage findDeadLetters(DeadLetterFilter filter, OptionalLong after, int limit) {
        Objects.requireNonNull(filter, "filter");
        Objects.requireNonNull(after, "after");
        requirePositive(limit);
        return withConnection(
                "find dead letters (" + filter.describe() + ")",
                connection -> repairs.find(connection, filter, after, limit));
    }

    @Override
    public long countDeadLetters(DeadLetterFilter filter, long upTo) {
        Objects.requireNonNull(filter, "filter");
        if (upTo < 1) {
            return 0;
        }
        return withConnection(
                "count dead letters (" + filter.describe() + ")",
                connection -> repairs.count(connection, filter, upTo));
    }

    @Override
    public long requeueDeadLetters(DeadLetterFilter filter, String actor, Instant now) {
        Objects.requireNonNull(filter, "filter");
        Objects.requireNonNull(actor, "actor");
        Objects.requireNonNull(now, "now");
        return withConnection(
                "requeue dead letters (" + filter.describe() + ")" + auditHint(),
                connection -> repairs.requeue(connection, filter, actor, now));
    }

    @Override
    public long purgeDeadLetters(DeadLetterFilter filter, String actor, Instant now) {
        Objects.requireNonNull(filter, "filter");
        Objects.requireNonNull(actor, "actor");
        Objects.requireNonNull(now, "now");
        return withConnection(
                "purge dead letters (" + filter.describe() + ")" + auditHint(),
                connection -> repairs.purge(connection, filter, actor, now));
    }

    @Override
    public long purgeSent(Instant createdBefore, String actor, Instant now) {
        Objects.requireNonNull(createdBefore, "createdBefore");
        Objects.requireNonNull(actor, "actor");
        Objects.requireNonNull(now, "now");
        return withConnection(
                "purge sent events" + auditHint(),
                connection -> repairs.audited(
                        connection, now, actor, AuditEntry.PURGE, "status=sent, created<" + createdBefore, () -> {
                            DSLContext inTransaction = DSL.using(
                                    connection, SQLDialect.POSTGRES, new Settings().withExecuteLogging(false));
                            attemptHistory.deleteOfPurged(inTransaction, EventStatus.SENT, createdBefore);
                            return layout.purge(connection, EventStatus.SENT, createdBefore);
                        }));
    }

    @Override
    public Optional<OutboxEvent> editAndRequeue(UUID eventId, EventEdit edit, String actor, Instant now) {
        Objects.requireNonNull(eventId, "eventId");
        Objects.requireNonNull(actor, "actor");
        Objects.requireNonNull(now, "now");
        edit.requireValid();
        return withConnection(
                "edit and requeue dead letter " + eventId + auditHint(),
                connection -> repairs.editAndRequeue(connection, eventId, edit, actor, now));
    }

    @Override
    public List<HeldKey> heldKeys(int limit) {
        requirePositive(limit);
        return withConnection("list held keys", connection -> repairs.heldKeys(connection, limit));
    }

    @Override
    public List<DestinationCounts> countByDestination(int limit) {
        requirePositive(limit);
        return withConnection(
                "count events by destination", connection -> repairs.countByDestination(connection, limit));
    }

    @Override
    public List<ActiveLease> activeLeases(int limit) {
        requirePositive(limit);
        return withConnection("list the leases held", connection -> repairs.activeLeases(connection, limit));
    }

    @Override
    public List<AuditEntry> auditTrail(OptionalLong before, int limit) {
        Objects.requireNonNull(before, "before");
        requirePositive(limit);
        return withConnection(
                "read the operator audit trail" + auditHint(),
                connection -> repairs.auditTrail(connection, before, limit));
    }

    @Override
    public List<Attempt> attempts(UUID eventId) {
        Objects.requireNonNull(eventId, "eventId");
        return run(
                "read the failed attempts of event " + eventId + " (the table " + config.tableName()
                        + "_attempts is created by ensureSchema() or the migrations in "
                        + PostgresSchema.OPERATOR_MIGRATIONS_LOCATION + ")",
                () -> attemptHistory.of(dsl, eventId));
    }

    /** Where the audit table comes from, for the message of a failure that may be its absence. */
    private String auditHint() {
        return " (the audit table " + config.tableName() + "_audit is created by ensureSchema() or the migrations in "
                + PostgresSchema.OPERATOR_MIGRATIONS_LOCATION + ")";
    }

    private static void requirePositive(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1, was " + limit);
        }
    }

    @Override
    public Ordering ordering() {
        return config.ordering();
    }

    @Override
    public HealthCheck checkHealth() {
        try {
            Optional<String> wrongLayout = withConnection("look at the outbox table's layout", layoutProbe::mismatch);
            if (wrongLayout.isPresent()) {
                return HealthCheck.down(wrongLayout.get());
            }
            List<String> missing = withConnection("look for the outbox table", connection -> {
                layout.probe(connection);
                return run("look for the per-key indexes", () -> layout.missingIndexes(connection));
            });
            String detail = "PostgreSQL reachable, outbox table " + config.tableName() + " present";
            if (!missing.isEmpty()) {
                // up all the same: leases work without the indexes, and a failing probe would stop the service
                detail += "; " + missingIndexesAdvice(missing);
            }
            return HealthCheck.up(detail);
        } catch (RuntimeException e) {
            return HealthCheck.down(Failures.wrap("query", config.table(), e).getMessage());
        }
    }

    /**
     * Stops the notifier of {@link #transactional()} and closes the connection pool if the store opened
     * it; a data source you passed in stays open.
     */
    @Override
    public void close() {
        transactional.close();
        ownedPool.ifPresent(HikariDataSource::close);
    }

    /**
     * Runs a hot-path statement (plain JDBC) on a connection of the data source, in auto-commit: each is
     * one statement (the ordered lease manages its own short transaction).
     */
    private <T> T withConnection(String attempted, ConnectionCall<T> call) {
        return run(attempted, () -> {
            try (Connection connection = dataSource.getConnection()) {
                if (!connection.getAutoCommit()) {
                    // a pool handing out connections in manual-commit mode would otherwise roll the mark back
                    connection.setAutoCommit(true);
                }
                return call.apply(connection);
            }
        });
    }

    private <T> T run(String attempted, StoreCall<T> statement) {
        try {
            return statement.call();
        } catch (OutboxException e) {
            throw e;
        } catch (SQLException | RuntimeException e) {
            throw Failures.wrap(attempted, config.table(), e);
        }
    }

    /** A store call: jOOQ (unchecked failures) or plain JDBC ({@link SQLException}). */
    @FunctionalInterface
    private interface StoreCall<T> {
        T call() throws SQLException;
    }

    @FunctionalInterface
    private interface ConnectionCall<T> {
        T apply(Connection connection) throws SQLException;
    }
}
