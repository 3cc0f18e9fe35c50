package dev.outboxjava.postgres.internal.appendlog;

import dev.outboxjava.postgres.internal.AsyncCommit;
import dev.outboxjava.postgres.internal.Identifiers;
import dev.outboxjava.postgres.internal.PreparedSql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import org.jooq.Field;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A table of the append-only layout kept in two generations, two partitions of a {@code gen} column:
 * rows are written to one for {@link #PERIOD}, then to the other, and the one not being written is
 * emptied with {@code TRUNCATE} once it allows it. Rows deleted or updated one by one leave dead versions
 * that vacuum may not remove while a transaction holds back the database's horizon; a truncated partition
 * gets a new, empty file at once, whatever the horizon, so reads of the table cover a few seconds of rows.
 *
 * <p>Emptying needs the idle partition's {@code ACCESS EXCLUSIVE} lock: it is asked for with a short lock
 * timeout (a {@code pg_dump}, or any transaction that read the table, makes it give up rather than keep
 * the relays queued behind it), at most once per period and again {@link #RETRY_AFTER} after a try that
 * could not empty it. What may go is decided under the lock by {@link #empty}; a generation whose file has
 * not grown since it was emptied is not asked for at all. The generation written
 * follows the relay's clock; processes whose clocks differ only empty each other's generation by the same
 * rule, which is harmless.
 */
public abstract class TableGenerations {

    /** The generation column of the lease and state tables, their partition key. */
    static final Field<Short> GEN = DSL.field(DSL.name("gen"), SQLDataType.SMALLINT);
    /** How long rows go to one generation before the other. */
    static final Duration PERIOD = Duration.ofSeconds(5);
    /** How long emptying waits for its lock before it gives up until the next try. */
    static final String LOCK_TIMEOUT = "50ms";
    /** After a try that could not empty the idle generation, how long before the next. */
    static final Duration RETRY_AFTER = Duration.ofSeconds(1);

    private static final String SHORT_LOCK_TIMEOUT =
            PreparedSql.render(DSL.select(AsyncCommit.setLocal("lock_timeout", LOCK_TIMEOUT)));

    private static final Logger log = LoggerFactory.getLogger(TableGenerations.class);

    private final Identifiers.TableName table;
    private final String[] lockSql = new String[2];
    private final String[] truncateSql = new String[2];
    private final String[] writtenSql = new String[2];
    /** The period whose idle generation this process has emptied. */
    private long emptiedFor = Long.MIN_VALUE;
    /** Until then, no new try after one that could not empty the idle generation. */
    private Instant nextTry = Instant.MIN;

    /** For the outbox table {@code table}, whose generation partitions {@code partitions} are. */
    TableGenerations(Identifiers.TableName table, Identifiers.TableName[] partitions) {
        this.table = table;
        for (int generation = 0; generation < 2; generation++) {
            lockSql[generation] = "LOCK TABLE " + partitions[generation].quoted() + " IN ACCESS EXCLUSIVE MODE";
            truncateSql[generation] = "TRUNCATE " + partitions[generation].quoted();
            // a partition not found is left to the lock below, which says so
            writtenSql[generation] = PreparedSql.render(DSL.select(DSL.field(
                    "coalesce(pg_relation_size(to_regclass({0})) > 0, true)",
                    SQLDataType.BOOLEAN, DSL.inline(partitions[generation].quoted()))));
        }
    }

    /** Whether the generation's file has grown since it was created or truncated (its rows may be dead). */
    private boolean written(Connection connection, int generation) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(writtenSql[generation]);
                ResultSet rs = statement.executeQuery()) {
            rs.next();
            return rs.getBoolean(1);
        }
    }

    /** The generation rows written at {@code now} go to. */
    public static short of(Instant now) {
        return (short) Math.floorMod(period(now), 2);
    }

    private static long period(Instant now) {
        return Math.floorDiv(now.getEpochSecond(), PERIOD.toSeconds());
    }

    /**
     * Under the idle generation's lock: makes it ready to be truncated, or says it cannot be yet.
     *
     * @return whether the idle generation may be truncated now
     */
    abstract boolean empty(Connection connection, int idle, short current) throws SQLException;

    /** What the generations hold, for the log line of a try that gave up. */
    abstract String what();

    /**
     * Truncates the generation not written at {@code now} if {@link #empty} allows it, once per period; in
     * its own transaction on {@code connection}, which must not be in one (auto-commit), and is left in
     * auto-commit. Gives up quietly when the lock is not granted at once.
     */
    public synchronized void emptyIdle(Connection connection, Instant now) throws SQLException {
        long current = period(now);
        if (current == emptiedFor || now.isBefore(nextTry)) {
            return;
        }
        short writing = of(now);
        int idle = 1 - writing;
        if (!written(connection, idle)) {
            // nothing was written to it since it was last emptied (the parking generations without per-key
            // ordering, always): a TRUNCATE would only cost new files for it and its indexes, a synchronous
            // commit and a new plan of every statement on the table, in the lease that pays for it
            emptiedFor = current;
            return;
        }
        connection.setAutoCommit(false);
        boolean emptied = false;
        try {
            try (PreparedStatement statement = connection.prepareStatement(SHORT_LOCK_TIMEOUT)) {
                statement.execute();
            }
            try (Statement statement = connection.createStatement()) {
                statement.execute(lockSql[idle]);
            }
            if (empty(connection, idle, writing)) {
                try (Statement statement = connection.createStatement()) {
                    statement.execute(truncateSql[idle]);
                }
                emptied = true;
            }
            connection.commit();
        } catch (SQLException e) {
            connection.rollback();
            emptied = false;
            if (!LogPartitions.LOCK_NOT_AVAILABLE.equals(e.getSQLState())) {
                throw e;
            }
            log.debug("outbox table {}: {} generation {} busy, emptied later", table.display(), what(), idle);
        } finally {
            connection.setAutoCommit(true);
        }
        if (emptied) {
            emptiedFor = current;
        } else {
            nextTry = now.plus(RETRY_AFTER);
        }
    }
}
