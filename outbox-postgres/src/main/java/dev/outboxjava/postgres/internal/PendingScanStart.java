package dev.outboxjava.postgres.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Where the append-only layout's lease starts its read of the state table's pending rows: the lowest
 * sequence of a pending row due by the lease's time plus {@link #LOOKUP_INTERVAL}, looked up again when that time has moved on by
 * {@link #LOOKUP_INTERVAL}, so that the lease does not walk from the lowest sequence every time.
 *
 * <p>Every pending row that an event leaves behind when it is leased from the state table is a dead
 * entry of the pending index, and while a long transaction holds the database's horizon nothing
 * removes them: a read from the lowest sequence walks all of them, on every lease. Starting at the
 * lowest due row skips them, and what the start could leave behind is caught within a second:
 *
 * <ul>
 *   <li>rows this process makes pending (events parked behind a busy key by its own lease, its retries,
 *       releases, sweeps and requeues) lower the start or reset it at once;</li>
 *   <li>rows another process makes pending below the start, and rows that fall due below it, are found
 *       when the start is next looked up, within {@link #LOOKUP_INTERVAL}.</li>
 * </ul>
 *
 * Ordering does not depend on it: the per-key checks of the lease read every row that holds a key.
 */
final class PendingScanStart {

    /** How long a start found is used before it is looked up again. */
    static final Duration LOOKUP_INTERVAL = Duration.ofSeconds(1);

    /** The start and the lease time it was looked up for (null: not known, look it up). */
    private record Start(long seq, Instant foundFor) {}

    private static final Start UNKNOWN = new Start(Long.MIN_VALUE, null);

    private final String lowestDueSql;
    private final AtomicReference<Start> start = new AtomicReference<>(UNKNOWN);

    /** @param lowestDueSql the lowest sequence of a pending state row due at the bound time (null: none) */
    PendingScanStart(String lowestDueSql) {
        this.lowestDueSql = lowestDueSql;
    }

    /**
     * The sequence the lease's state read starts at, looked up again when the lease's time is
     * {@link #LOOKUP_INTERVAL} or more away from the time it was looked up for.
     */
    long seq(Connection connection, Instant now) throws SQLException {
        Start current = start.get();
        if (current.foundFor() != null
                && Duration.between(current.foundFor(), now).abs().compareTo(LOOKUP_INTERVAL) < 0) {
            return current.seq();
        }
        long lowest;
        try (PreparedStatement statement = connection.prepareStatement(lowestDueSql)) {
            // rows due within the interval count too: until the next lookup they must not fall below the start
            // (a row parked for its key is due at its creation time, which may be a little after now)
            statement.setObject(1, Jdbc.timestamptz(now.plus(LOOKUP_INTERVAL)));
            try (ResultSet rs = statement.executeQuery()) {
                rs.next();
                lowest = rs.getObject(1) == null ? Long.MAX_VALUE : rs.getLong(1);
            }
        }
        // a reset or a lowering meanwhile wins over what was looked up before it
        Start found = new Start(lowest, now);
        return start.compareAndSet(current, found) ? lowest : start.get().seq();
    }

    /** Rows this process parked in the lease in progress: the start goes down to the lowest of them. */
    void lowerTo(long seq) {
        start.updateAndGet(current -> seq < current.seq() ? new Start(seq, current.foundFor()) : current);
    }

    /** This process made rows pending whose sequences it does not know: the next lease reads from the lowest. */
    void reset() {
        start.set(UNKNOWN);
    }
}
