package dev.outboxjava.it.faults;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import javax.sql.DataSource;

/**
 * Measures how far a relay's clock is from the database's. The library fences marks by lease id, so a
 * skewed clock never loses an event, but lease expiry compares times written by one relay with the clock
 * of another's sweeper: <b>clock skew between relay hosts must stay well below
 * {@code leaseTimeout − publishTimeout}</b>. A sweeper whose clock runs ahead by more than that reclaims
 * batches that are still being published (duplicates, lease-lost marks); a relay whose clock lags stamps
 * leases that look old at once. Every relay can check itself against the database at start (the database
 * is the one clock all relays share) and warn or refuse to start when the skew exceeds the budget.
 */
public final class ClockSkewCheck {

    private ClockSkewCheck() {}

    /**
     * The relay clock minus the database clock (positive: the relay is ahead), corrected for half the
     * round trip.
     */
    public static Duration measure(DataSource dataSource, Clock relayClock) throws SQLException {
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement()) {
            long before = System.nanoTime();
            Instant relayBefore = relayClock.instant();
            Instant database;
            try (ResultSet rows = statement.executeQuery("SELECT clock_timestamp()")) {
                rows.next();
                database = rows.getTimestamp(1).toInstant();
            }
            long roundTrip = System.nanoTime() - before;
            return Duration.between(database, relayBefore.plusNanos(roundTrip / 2));
        }
    }

    /** Whether {@code skew} (either direction) fits the budget {@code leaseTimeout − publishTimeout}. */
    public static boolean withinBudget(Duration skew, Duration leaseTimeout, Duration publishTimeout) {
        return skew.abs().compareTo(leaseTimeout.minus(publishTimeout)) < 0;
    }
}
