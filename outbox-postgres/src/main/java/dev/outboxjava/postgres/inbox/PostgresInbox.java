package dev.outboxjava.postgres.inbox;

import static dev.outboxjava.postgres.inbox.InboxTable.CONSUMER_NAME;
import static dev.outboxjava.postgres.inbox.InboxTable.MESSAGE_ID;
import static dev.outboxjava.postgres.inbox.InboxTable.PROCESSED_AT;

import dev.outboxjava.core.OutboxStoreException;
import dev.outboxjava.core.inbox.Inbox;
import dev.outboxjava.core.inbox.InboxKey;
import dev.outboxjava.core.inbox.InboxResult;
import dev.outboxjava.core.inbox.InboxWork;
import dev.outboxjava.postgres.internal.JooqBanner;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.Objects;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.conf.Settings;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link Inbox} on PostgreSQL: the work receives the transaction's {@link Connection}, and the
 * message id is recorded on that same connection, so the effect and the record commit together.
 * See the {@linkplain dev.outboxjava.postgres.inbox package description} for a complete example.
 *
 * <p>{@link #process} opens a connection from the data source, turns auto-commit off, and then:
 * <ol>
 *   <li>{@code INSERT INTO <table> (consumer_name, message_id, processed_at) VALUES (?, ?, ?) ON CONFLICT
 *       DO NOTHING} — no row inserted means the message was processed: roll back, return
 *       {@link InboxResult#DUPLICATE};</li>
 *   <li>runs the work on the same connection;</li>
 *   <li>commits. When the work (or the commit) fails, everything rolls back: the id is not recorded
 *       and a redelivery runs the work again.</li>
 * </ol>
 * Because the insert comes first, a concurrent duplicate of the same id blocks on the primary key
 * until the first delivery commits (then it inserts nothing: duplicate) or rolls back (then it
 * proceeds and runs the work). Neither sees an error, and as the insert is the duplicate's first
 * statement it holds no lock anyone else waits for, so no deadlock. A waiting duplicate does hold a
 * pool connection meanwhile: size the pool for the consumer's concurrency.
 *
 * <p>Runs at the connection's isolation level. PostgreSQL's default, READ COMMITTED, is what the
 * description above assumes; at REPEATABLE READ or SERIALIZABLE a duplicate racing the first
 * delivery can instead fail with a serialization error (SQLState 40001, an
 * {@link OutboxStoreException}), which is safe — nothing was recorded twice — but not quiet.
 *
 * <p>{@code processed_at} comes from the injected clock, never from {@code now()}. Thread-safe.
 */
public final class PostgresInbox implements Inbox<Connection> {

    static {
        JooqBanner.silence();
    }

    private static final Logger log = LoggerFactory.getLogger(PostgresInbox.class);
    private static final Settings JOOQ_SETTINGS = new Settings().withExecuteLogging(false);

    private final DataSource dataSource;
    private final PostgresInboxConfig config;
    private final InboxTable table;
    private final Clock clock;
    private final DSLContext pooled;

    private PostgresInbox(DataSource dataSource, PostgresInboxConfig config, Clock clock) {
        this.dataSource = dataSource;
        this.config = config;
        this.table = new InboxTable(config.table());
        this.clock = clock;
        this.pooled = DSL.using(dataSource, SQLDialect.POSTGRES, JOOQ_SETTINGS);
    }

    /**
     * An inbox over your {@link DataSource} (ideally the pool your consumer's own queries use), stamping
     * records with {@code clock}. The inbox does not close the data source.
     */
    public static PostgresInbox create(DataSource dataSource, PostgresInboxConfig config, Clock clock) {
        return new PostgresInbox(
                Objects.requireNonNull(dataSource, "dataSource"),
                Objects.requireNonNull(config, "config"),
                Objects.requireNonNull(clock, "clock"));
    }

    /** An inbox stamping records with the system clock (UTC). */
    public static PostgresInbox create(DataSource dataSource, PostgresInboxConfig config) {
        return create(dataSource, config, Clock.systemUTC());
    }

    /** The configuration this inbox runs with. */
    public PostgresInboxConfig config() {
        return config;
    }

    /** Creates the table and its index if missing; see {@link PostgresInboxSchema#apply}. */
    public void ensureSchema() {
        PostgresInboxSchema.apply(dataSource, config);
    }

    @Override
    public <X extends Exception> InboxResult process(
            String consumerName, String messageId, InboxWork<Connection, X> work) throws X {
        Objects.requireNonNull(work, "work");
        InboxKey key = new InboxKey(consumerName, messageId);
        Connection connection = open(key);
        try {
            boolean autoCommit = beginTransaction(connection, key);
            try {
                return processIn(connection, key, work);
            } finally {
                restore(connection, autoCommit);
            }
        } finally {
            close(connection);
        }
    }

    /**
     * Records the message in the CALLER's transaction, for callers that manage transactions
     * themselves (a framework's transaction manager): {@code true} when this is the first time this
     * consumer sees the message — go on with the work in the same transaction and let its commit
     * record both; {@code false} when it was processed already — skip the work. A concurrent
     * duplicate blocks inside this call until the first transaction ends. The connection must not
     * be in auto-commit mode, or the record commits before the work ran.
     *
     * @throws OutboxStoreException when the statement fails (the caller's transaction is then aborted)
     */
    public boolean claim(Connection connection, String consumerName, String messageId) {
        Objects.requireNonNull(connection, "connection");
        return claim(connection, new InboxKey(consumerName, messageId));
    }

    @Override
    public boolean isProcessed(String consumerName, String messageId) {
        InboxKey key = new InboxKey(consumerName, messageId);
        try {
            return pooled.fetchExists(DSL.selectOne()
                    .from(table.table())
                    .where(CONSUMER_NAME.eq(key.consumerName()))
                    .and(MESSAGE_ID.eq(key.messageId())));
        } catch (DataAccessException e) {
            throw failure("look up message " + key.messageId() + " of consumer " + key.consumerName(), e);
        }
    }

    /**
     * Deletes up to {@code limit} records processed before {@code processedBefore}, oldest first, in
     * one statement; rows another cleaner is deleting are skipped ({@code FOR UPDATE SKIP LOCKED}).
     */
    @Override
    public int cleanUp(Instant processedBefore, int limit) {
        Objects.requireNonNull(processedBefore, "processedBefore");
        if (limit <= 0) {
            return 0;
        }
        var old = DSL.select(CONSUMER_NAME, MESSAGE_ID)
                .from(table.table())
                .where(PROCESSED_AT.lt(processedBefore))
                .orderBy(PROCESSED_AT)
                .limit(limit)
                .forUpdate()
                .skipLocked();
        try {
            return pooled.deleteFrom(table.table())
                    .where(DSL.row(CONSUMER_NAME, MESSAGE_ID).in(old))
                    .execute();
        } catch (DataAccessException e) {
            throw failure("delete up to " + limit + " records processed before " + processedBefore, e);
        }
    }

    private <X extends Exception> InboxResult processIn(
            Connection connection, InboxKey key, InboxWork<Connection, X> work) throws X {
        boolean claimed;
        try {
            claimed = claim(connection, key);
        } catch (RuntimeException e) {
            rollback(connection, e);
            throw e;
        }
        if (!claimed) {
            rollback(connection, null);
            log.debug("consumer {} skipped message {}: already processed", key.consumerName(), key.messageId());
            return InboxResult.DUPLICATE;
        }
        try {
            work.execute(connection);
        } catch (Exception | Error e) {
            rollback(connection, e);
            throw e;
        }
        try {
            connection.commit();
        } catch (SQLException e) {
            rollback(connection, e);
            throw failure(
                    "commit message " + key.messageId() + " of consumer " + key.consumerName()
                            + " (its work was rolled back and will run again on redelivery)",
                    e);
        }
        return InboxResult.PROCESSED;
    }

    private boolean claim(Connection connection, InboxKey key) {
        try {
            int inserted = DSL.using(connection, SQLDialect.POSTGRES, JOOQ_SETTINGS)
                    .insertInto(table.table(), CONSUMER_NAME, MESSAGE_ID, PROCESSED_AT)
                    .values(key.consumerName(), key.messageId(), clock.instant())
                    .onConflictDoNothing()
                    .execute();
            return inserted == 1;
        } catch (DataAccessException e) {
            throw failure("record message " + key.messageId() + " of consumer " + key.consumerName(), e);
        }
    }

    private Connection open(InboxKey key) {
        try {
            return dataSource.getConnection();
        } catch (SQLException e) {
            throw failure(
                    "get a connection to process message " + key.messageId() + " of consumer " + key.consumerName(), e);
        }
    }

    private boolean beginTransaction(Connection connection, InboxKey key) {
        try {
            boolean autoCommit = connection.getAutoCommit();
            connection.setAutoCommit(false);
            return autoCommit;
        } catch (SQLException e) {
            throw failure(
                    "begin a transaction for message " + key.messageId() + " of consumer " + key.consumerName(), e);
        }
    }

    private static void rollback(Connection connection, Throwable cause) {
        try {
            connection.rollback();
        } catch (SQLException rollbackFailure) {
            if (cause != null) {
                cause.addSuppressed(rollbackFailure);
            } else {
                log.debug("rollback of a duplicate's empty transaction failed", rollbackFailure);
            }
        }
    }

    private static void restore(Connection connection, boolean autoCommit) {
        try {
            connection.setAutoCommit(autoCommit);
        } catch (SQLException ignored) {
            // the connection is broken; the pool discards it
        }
    }

    private static void close(Connection connection) {
        try {
            connection.close();
        } catch (SQLException e) {
            log.debug("closing an inbox connection failed", e);
        }
    }

    private OutboxStoreException failure(String attempted, Exception cause) {
        String sqlState = InboxFailures.sqlState(cause);
        StringBuilder message = new StringBuilder("could not ")
                .append(attempted)
                .append(" in inbox table ")
                .append(config.tableName())
                .append(": ")
                .append(InboxFailures.rootMessage(cause));
        if ("42P01".equals(sqlState)) {
            message.append(" (the table does not exist: create it with inbox.ensureSchema() or the migrations in ")
                    .append(PostgresInboxSchema.MIGRATIONS_LOCATION)
                    .append("; PostgresInboxSchema.ddl(config) prints them for your table name)");
        } else if ("40001".equals(sqlState)) {
            message.append(" (a serialization failure: run the inbox at READ COMMITTED, or retry the delivery)");
        } else if (sqlState != null && sqlState.startsWith("08")) {
            message.append(" (the database connection failed; nothing was recorded, so a redelivery retries)");
        }
        return new OutboxStoreException(message.toString(), cause);
    }
}
