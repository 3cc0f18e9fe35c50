package dev.outboxjava.postgres;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.InvalidConfigurationException;
import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.ActiveLease;
import dev.outboxjava.core.port.Attempt;
import dev.outboxjava.core.port.AuditEntry;
import dev.outboxjava.core.port.Backlog;
import dev.outboxjava.core.port.DeadLetterFilter;
import dev.outboxjava.core.port.DeadLetterMark;
import dev.outboxjava.core.port.DestinationCounts;
import dev.outboxjava.core.port.EventEdit;
import dev.outboxjava.core.port.EventPage;
import dev.outboxjava.core.port.FailureGroup;
import dev.outboxjava.core.port.HeldKey;
import dev.outboxjava.core.port.MarkResult;
import dev.outboxjava.core.port.OperatorStore;
import dev.outboxjava.core.port.OutboxStore;
import dev.outboxjava.core.port.RetryMark;
import dev.outboxjava.core.port.WorkerHeartbeat;
import dev.outboxjava.core.port.WorkerHeartbeats;
import dev.outboxjava.postgres.internal.AttemptHistory;
import dev.outboxjava.postgres.internal.AttemptRecording;
import dev.outboxjava.postgres.internal.FailureMarks;
import dev.outboxjava.postgres.internal.Failures;
import dev.outboxjava.postgres.internal.HeartbeatCalls;
import dev.outboxjava.postgres.internal.Layout;
import dev.outboxjava.postgres.internal.LayoutProbe;
import dev.outboxjava.postgres.internal.MissingIndexWarning;
import dev.outboxjava.postgres.internal.OperatorCalls;
import dev.outboxjava.postgres.internal.OwnedPool;
import dev.outboxjava.postgres.internal.OwnedPoolCheck;
import dev.outboxjava.postgres.internal.StoreCalls;
import dev.outboxjava.postgres.internal.appendlog.AppendLogLayout;
import dev.outboxjava.postgres.internal.inplace.InPlaceLayout;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link OutboxStore} and {@link OperatorStore} on PostgreSQL (14+), through pgjdbc and jOOQ, in the
 * configured {@link StoreLayout} (chosen once, at construction). Every call is a few short statements in
 * auto-commit, so no transaction is held open, least of all across a broker call; each mark is fenced by
 * the lease id, and every time comes from the caller.
 *
 * <pre>{@code
 * try (PostgresOutboxStore store = PostgresOutboxStore.create(dataSource, PostgresOutboxConfig.ofDefaults())) {
 *     store.ensureSchema();
 *     List<OutboxEvent> batch = store.lease(UUID.randomUUID(), 100, clock.instant());
 * }
 * }</pre>
 *
 * Appending is done in the caller's transaction with {@link OutboxWriter} ({@link #writer()}). Failures
 * are {@link dev.outboxjava.core.OutboxStoreException}s naming the table and the attempt. Thread-safe.
 */
public final class PostgresOutboxStore implements OutboxStore, OperatorStore, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(PostgresOutboxStore.class);

    private final PostgresOutboxConfig config;
    private final DataSource dataSource;
    private final Optional<OwnedPool> ownedPool;
    private final DSLContext dsl;
    private final LayoutProbe layoutProbe;

    private final TransactionalOutbox transactional;
    /** The statements of the configured layout, chosen once. */
    private final Layout layout;

    private final StoreCalls calls;
    private final AttemptHistory attemptHistory;
    private final AttemptRecording attempts;
    private final FailureMarks failureMarks;
    private final OperatorCalls operator;
    private final MissingIndexWarning missingIndexes;
    private final HeartbeatCalls heartbeats;

    private PostgresOutboxStore(DataSource dataSource, Optional<OwnedPool> ownedPool, PostgresOutboxConfig config) {
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
        this.calls = new StoreCalls(dataSource, config.table());
        this.attemptHistory = layout.attempts();
        this.attempts =
                new AttemptRecording(attemptHistory, config.tableName(), PostgresSchema.OPERATOR_MIGRATIONS_LOCATION);
        this.failureMarks = new FailureMarks(calls, layout, attempts);
        this.operator =
                new OperatorCalls(calls, layout, dsl, config.tableName(), PostgresSchema.OPERATOR_MIGRATIONS_LOCATION);
        this.missingIndexes =
                new MissingIndexWarning(layout, config.tableName(), PostgresSchema.PER_KEY_MIGRATIONS_LOCATION);
        this.heartbeats = new HeartbeatCalls(calls, dsl, config.table(), PostgresSchema.OPERATOR_MIGRATIONS_LOCATION);
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
     * closed by {@link #close()}. HikariCP is an optional dependency of this module: a service that calls
     * this adds {@code com.zaxxer:HikariCP} (a service that passes its own {@code DataSource} needs none).
     *
     * @param jdbcUrl e.g. {@code jdbc:postgresql://db:5432/orders}
     * @throws InvalidConfigurationException when HikariCP is not on the class path
     */
    public static PostgresOutboxStore create(
            String jdbcUrl, String user, String password, PostgresOutboxConfig config) {
        Objects.requireNonNull(config, "config");
        if (jdbcUrl == null || !jdbcUrl.startsWith("jdbc:postgresql:")) {
            throw new InvalidConfigurationException(
                    "jdbcUrl", "must be a PostgreSQL JDBC URL starting with " + "jdbc:postgresql:, was " + jdbcUrl);
        }
        OwnedPoolCheck.requireHikari();
        OwnedPool pool = OwnedPool.create(
                jdbcUrl,
                Objects.requireNonNull(user, "user"),
                Objects.requireNonNull(password, "password"),
                config.maximumPoolSize(),
                "outbox-" + config.tableName());
        return new PostgresOutboxStore(pool.dataSource(), Optional.of(pool), config);
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
        return calls.withConnection("lease up to " + limit + " events", connection -> {
            missingIndexes.checkOnce(connection);
            return layout.lease(connection, leaseId, limit, now);
        });
    }

    @Override
    public MarkResult markPublished(UUID leaseId, Collection<UUID> eventIds, Instant now) {
        Objects.requireNonNull(now, "now");
        if (eventIds.isEmpty()) {
            return MarkResult.empty(); // no connection taken for nothing
        }
        return calls.withConnection(
                "mark " + eventIds.size() + " events published under lease " + leaseId,
                connection -> layout.published(connection, Objects.requireNonNull(leaseId, "leaseId"), eventIds, now));
    }

    @Override
    public MarkResult markRetry(UUID leaseId, Collection<RetryMark> retryMarks, Instant now) {
        return failureMarks.retry(leaseId, retryMarks, now);
    }

    @Override
    public MarkResult markDeadLettered(UUID leaseId, Collection<DeadLetterMark> deadLetterMarks, Instant now) {
        return failureMarks.deadLettered(leaseId, deadLetterMarks, now);
    }

    @Override
    public MarkResult release(UUID leaseId, Collection<UUID> eventIds, Instant now) {
        if (eventIds.isEmpty()) {
            return MarkResult.empty(); // no connection taken for nothing
        }
        return calls.withConnection(
                "release " + eventIds.size() + " events of lease " + leaseId,
                connection -> layout.released(connection, Objects.requireNonNull(leaseId, "leaseId"), eventIds));
    }

    @Override
    public int sweepExpiredLeases(Instant leasedBefore, int limit) {
        Objects.requireNonNull(leasedBefore, "leasedBefore");
        if (limit <= 0) {
            return 0;
        }
        return calls.withConnection(
                "sweep up to " + limit + " expired leases",
                connection -> layout.sweep(connection, leasedBefore, limit));
    }

    @Override
    public int cleanUp(Instant sentBefore, int limit) {
        Objects.requireNonNull(sentBefore, "sentBefore");
        if (limit <= 0) {
            return 0;
        }
        calls.run("delete the failed attempts of up to " + limit + " sent events", () -> {
            attempts.deleteAttempts(() -> attemptHistory.deleteOfSentBefore(dsl, sentBefore, limit));
            // the attempts of events deleted at publication (delete-on-publish mode) have no sent row to go with
            attempts.deleteAttempts(() -> attemptHistory.deleteOrphansBefore(dsl, sentBefore, limit));
            return null;
        });
        return calls.withConnection(
                "delete up to " + limit + " sent events", connection -> layout.cleanUp(connection, sentBefore, limit));
    }

    @Override
    public Map<EventStatus, Long> countByStatus() {
        return operator.countByStatus();
    }

    @Override
    public Optional<Instant> oldestPendingCreatedAt() {
        return operator.oldestPendingCreatedAt();
    }

    @Override
    public Backlog backlog(Instant now) {
        return operator.backlog(now);
    }

    @Override
    public Optional<OutboxEvent> find(UUID eventId) {
        return operator.find(eventId);
    }

    @Override
    public List<OutboxEvent> listRetrying(int offset, int limit) {
        return operator.listRetrying(offset, limit);
    }

    /** How many events wait for a retry (the whole of what {@link #listRetrying} pages through). */
    public long countRetrying() {
        return operator.countRetrying();
    }

    /**
     * How many events in {@code status} ({@code failed} or {@code sent}) were created before
     * {@code createdBefore}: what {@link #purgeDeadLetters} by creation time or {@link #purgeSent} would
     * delete now. Deletes nothing.
     */
    public long countPurgeable(EventStatus status, Instant createdBefore) {
        return operator.countPurgeable(status, createdBefore);
    }

    @Override
    public EventPage findDeadLetters(DeadLetterFilter filter, OptionalLong after, int limit) {
        return operator.findDeadLetters(filter, after, limit);
    }

    @Override
    public long countDeadLetters(DeadLetterFilter filter, long upTo) {
        return operator.countDeadLetters(filter, upTo);
    }

    @Override
    public long requeueDeadLetters(DeadLetterFilter filter, String actor, Instant now) {
        return operator.requeueDeadLetters(filter, actor, now);
    }

    @Override
    public long purgeDeadLetters(DeadLetterFilter filter, String actor, Instant now) {
        return operator.purgeDeadLetters(filter, actor, now);
    }

    @Override
    public long purgeSent(Instant createdBefore, String actor, Instant now) {
        return operator.purgeSent(createdBefore, actor, now);
    }

    @Override
    public Optional<OutboxEvent> editAndRequeue(UUID eventId, EventEdit edit, String actor, Instant now) {
        return operator.editAndRequeue(eventId, edit, actor, now);
    }

    @Override
    public List<HeldKey> heldKeys(int limit) {
        return operator.heldKeys(limit);
    }

    @Override
    public List<DestinationCounts> countByDestination(int limit) {
        return operator.countByDestination(limit);
    }

    @Override
    public List<ActiveLease> activeLeases(int limit) {
        return operator.activeLeases(limit);
    }

    /**
     * {@inheritDoc} The cause is computed in SQL by the rule of {@link dev.outboxjava.core.port.ErrorCause};
     * an event without recorded attempts counts in first and last seen with its creation time.
     */
    @Override
    public List<FailureGroup> failureGroups(int limit) {
        return operator.failureGroups(limit);
    }

    @Override
    public List<String> deadLetterValues(DeadLetterFilter.Field field, String containing, int limit) {
        return operator.deadLetterValues(field, containing, limit);
    }

    @Override
    public Map<UUID, Instant> deadLetteredAt(Set<UUID> eventIds) {
        return operator.deadLetteredAt(eventIds);
    }

    @Override
    public long retryNow(Set<UUID> eventIds, String actor, Instant now) {
        return operator.retryNow(eventIds, actor, now);
    }

    @Override
    public long deadLetterNow(Set<UUID> eventIds, String actor, Instant now) {
        return operator.deadLetterNow(eventIds, actor, now);
    }

    @Override
    public List<AuditEntry> auditTrail(OptionalLong before, int limit) {
        return operator.auditTrail(before, limit);
    }

    @Override
    public List<Attempt> attempts(UUID eventId) {
        return operator.attempts(eventId);
    }

    @Override
    public List<WorkerHeartbeat> workers(int limit) {
        return heartbeats.workers(limit);
    }

    /** The workers' heartbeats in {@code <table>_workers}, where each worker of this table records itself. */
    public WorkerHeartbeats heartbeats() {
        return heartbeats;
    }

    @Override
    public Ordering ordering() {
        return config.ordering();
    }

    @Override
    public HealthCheck checkHealth() {
        try {
            Optional<String> wrongLayout =
                    calls.withConnection("look at the outbox table's layout", layoutProbe::mismatch);
            if (wrongLayout.isPresent()) {
                return HealthCheck.down(wrongLayout.get());
            }
            List<String> missing = calls.withConnection("look for the outbox table", connection -> {
                layout.probe(connection);
                return calls.run("look for the per-key indexes", () -> layout.missingIndexes(connection));
            });
            // up all the same without the indexes: leases work, and a failing probe would stop the service
            return HealthCheck.up("PostgreSQL reachable, outbox table " + config.tableName() + " present"
                    + (missing.isEmpty() ? "" : "; " + missingIndexes.advice(missing)));
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
        ownedPool.ifPresent(OwnedPool::close);
    }
}
