package dev.outboxjava.postgres.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import org.jooq.impl.DSL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The append-only layout's lease table in two generations, its two partitions: leases are written to one
 * for {@link #PERIOD}, then to the other, and a generation is truncated once nothing in it is in flight.
 * Every published batch deletes its lease row; while a transaction holds back the database's horizon,
 * vacuum can remove none of those rows, and the per-key lease, which reads every lease row for the keys
 * in flight, would read them all. Truncating whole generations removes them whatever the horizon, so
 * that read covers a few seconds of leases.
 *
 * <p>Truncating needs the partition's {@code ACCESS EXCLUSIVE} lock: it is asked for with a short lock
 * timeout (a {@code pg_dump}, or any transaction that read the lease table, makes it give up rather than
 * keep the relays queued behind it), and the partition is checked empty under the lock, so a lease row
 * still in flight (a relay slow to mark, or gone until the sweeper moves its row) keeps its generation
 * until it has left. The generation a lease writes follows the relay's clock; processes whose clocks
 * differ only truncate each other's generation when it is empty, which is harmless.
 */
public final class LeaseGenerations {

    /** How long leases go to one generation before the other. */
    static final Duration PERIOD = Duration.ofSeconds(5);
    /** How long the truncation waits for its lock before it gives up until the next try. */
    static final String LOCK_TIMEOUT = "50ms";
    /** After a truncation that could not be done, how long before the next try. */
    static final Duration RETRY_AFTER = Duration.ofSeconds(1);

    private static final String SHORT_LOCK_TIMEOUT =
            PreparedSql.render(DSL.select(AsyncCommit.setLocal("lock_timeout", LOCK_TIMEOUT)));

    private static final Logger log = LoggerFactory.getLogger(LeaseGenerations.class);

    private final Identifiers.TableName table;
    private final String[] lockSql = new String[2];
    private final String[] anySql = new String[2];
    private final String[] truncateSql = new String[2];
    /** The period whose idle generation this process has emptied. */
    private long emptiedFor = Long.MIN_VALUE;
    /** Until then, no new try after one that could not empty the idle generation. */
    private Instant nextTry = Instant.MIN;

    public LeaseGenerations(Identifiers.TableName table) {
        this.table = table;
        for (int generation = 0; generation < 2; generation++) {
            String partition = LogLayoutDdl.leaseGeneration(table, generation).quoted();
            lockSql[generation] = "LOCK TABLE " + partition + " IN ACCESS EXCLUSIVE MODE";
            anySql[generation] = PreparedSql.render(DSL.selectOne()
                    .from(LogLayoutQueries.tableOf(LogLayoutDdl.leaseGeneration(table, generation)))
                    .limit(DSL.inline(1)));
            truncateSql[generation] = "TRUNCATE " + partition;
        }
    }

    /** The generation a lease taken at {@code now} is written to. */
    public static short of(Instant now) {
        return (short) Math.floorMod(period(now), 2);
    }

    private static long period(Instant now) {
        return Math.floorDiv(now.getEpochSecond(), PERIOD.toSeconds());
    }

    /**
     * Truncates the generation not written at {@code now} if it is empty, once per period; in its own
     * transaction on {@code connection}, which must not be in one (auto-commit), and is left in auto-commit.
     * Gives up quietly when the lock is not granted at once or a lease row is still in the generation.
     */
    public synchronized void emptyIdle(Connection connection, Instant now) throws SQLException {
        long current = period(now);
        if (current == emptiedFor || now.isBefore(nextTry)) {
            return;
        }
        int idle = 1 - of(now);
        connection.setAutoCommit(false);
        boolean emptied = false;
        try {
            try (PreparedStatement statement = connection.prepareStatement(SHORT_LOCK_TIMEOUT)) {
                statement.execute();
            }
            try (Statement statement = connection.createStatement()) {
                statement.execute(lockSql[idle]);
            }
            boolean inFlight;
            try (PreparedStatement statement = connection.prepareStatement(anySql[idle]);
                    ResultSet rs = statement.executeQuery()) {
                inFlight = rs.next();
            }
            if (!inFlight) {
                try (Statement statement = connection.createStatement()) {
                    statement.execute(truncateSql[idle]);
                }
                emptied = true;
            }
            connection.commit();
        } catch (SQLException e) {
            connection.rollback();
            if (!LogPartitions.LOCK_NOT_AVAILABLE.equals(e.getSQLState())) {
                throw e;
            }
            log.debug("outbox table {}: lease generation {} busy, emptied later", table.display(), idle);
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
