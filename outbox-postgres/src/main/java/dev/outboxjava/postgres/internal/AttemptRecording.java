package dev.outboxjava.postgres.internal;

import dev.outboxjava.core.port.Attempt;
import dev.outboxjava.core.port.MarkResult;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * The failed attempts recorded with the failure marks and deleted before their events go. Without the
 * attempts table (its migration not run) the marks and deletions go on without it, and the store is told
 * ({@code missingTable}) so that it can warn: a missing history must not stop the relay.
 */
public final class AttemptRecording {

    private final AttemptHistory history;
    private final Consumer<Exception> missingTable;

    public AttemptRecording(AttemptHistory history, Consumer<Exception> missingTable) {
        this.history = history;
        this.missingTable = missingTable;
    }

    /** Runs a failure mark and records the failed attempts it marked, in one transaction. */
    public MarkResult withAttempts(
            Connection connection,
            UUID leaseId,
            Map<UUID, String> errors,
            Attempt.Outcome outcome,
            Instant now,
            StoreCalls.StoreCall<MarkResult> mark)
            throws SQLException {
        connection.setAutoCommit(false);
        try {
            MarkResult result = mark.call();
            history.record(connection, leaseId, errors, result.marked(), outcome, now);
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
            missingTable.accept(e);
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
            missingTable.accept(e);
        }
    }
}
