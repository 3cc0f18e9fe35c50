package dev.outboxjava.postgres.health;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * A prepared (two-phase) transaction of the database ({@code pg_prepared_xacts}). It belongs to no
 * session: it holds the xmin horizon back, and keeps its locks, until a transaction manager or an
 * operator ends it with {@code COMMIT PREPARED} or {@code ROLLBACK PREPARED}, across restarts too.
 *
 * @param gid      the transaction's global identifier (the argument of {@code COMMIT/ROLLBACK PREPARED})
 * @param owner    the user that prepared it
 * @param prepared when it was prepared
 * @param age      how long ago that was at the time of the probe
 * @param xidAge   how many transaction ids old its xid is ({@code age(transaction)})
 */
public record PreparedTransaction(String gid, String owner, Instant prepared, Duration age, long xidAge) {

    public PreparedTransaction {
        Objects.requireNonNull(gid, "gid");
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(prepared, "prepared");
        Objects.requireNonNull(age, "age");
    }

    /** One line for logs and health details. */
    public String describe() {
        return "prepared transaction '" + gid + "' (owner " + owner + "), prepared " + age.toMillis() / 1000.0
                + "s ago at " + prepared + ", " + xidAge + " transaction ids old";
    }
}
