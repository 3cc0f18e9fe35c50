package dev.outboxjava.postgres.internal;

import dev.outboxjava.core.port.Attempt;
import dev.outboxjava.core.port.MarkResult;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The failed attempts recorded with the failure marks and deleted before their events go. Without the
 * attempts table (its migration not run) the marks and deletions go on without it, with one warning per
 * store: a missing history must not stop the relay.
 */
public final class AttemptRecording {

    private static final Logger log = LoggerFactory.getLogger(AttemptRecording.class);

    private final AttemptHistory history;
    private final String tableName;
    private final String migrationsLocation;
    /** Whether the missing attempts table has been reported. */
    private final AtomicBoolean missingReported = new AtomicBoolean();

    /**
     * @param tableName          the outbox table, named in the warning
     * @param migrationsLocation the Flyway location that creates the attempts table, named in the warning
     */
    public AttemptRecording(AttemptHistory history, String tableName, String migrationsLocation) {
        this.history = history;
        this.tableName = tableName;
        this.migrationsLocation = migrationsLocation;
    }

    private void missingTable(Exception e) {
        if (missingReported.compareAndSet(false, true)) {
            log.warn(
                    "outbox table {}: the failed attempts are not recorded: {} ({}). Create it with "
                            + "store.ensureSchema() or the migrations in {}",
                    tableName,
                    history.tableName(),
                    e.getMessage(),
                    migrationsLocation);
        }
    }

    /**
     * Runs a failure mark and records the failed attempts it marked, in one transaction.
     *
     * @param stoppedBy of dead-lettered events, which rule stopped their attempts, by id
     */
    public MarkResult withAttempts(
            Connection connection,
            UUID leaseId,
            Map<UUID, String> errors,
            Map<UUID, String> stoppedBy,
            Attempt.Outcome outcome,
            Instant now,
            StoreCalls.StoreCall<MarkResult> mark)
            throws SQLException {
        connection.setAutoCommit(false);
        try {
            MarkResult result = mark.call();
            history.record(connection, leaseId, errors, stoppedBy, result.marked(), outcome, now);
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
            missingTable(e);
            connection.setAutoCommit(true);
            return mark.call();
        } finally {
            connection.setAutoCommit(true);
        }
    }

    /** Runs a deletion of attempts before their events go; skipped (the store told) without the table. */
    public void deleteAttempts(StoreCalls.StoreCall<Integer> deletion) throws SQLException {
        try {
            deletion.call();
        } catch (RuntimeException e) {
            if (!AttemptHistory.isMissingTable(e)) {
                throw e;
            }
            missingTable(e);
        }
    }
}
