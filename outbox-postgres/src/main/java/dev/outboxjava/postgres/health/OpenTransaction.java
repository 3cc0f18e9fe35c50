package dev.outboxjava.postgres.health;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * The open transaction of the database that holds the xmin horizon back the furthest (from
 * {@code pg_stat_activity}). While it stays open, VACUUM cannot remove rows that died after it
 * started (dead tuples of the outbox pile up and polling slows down), and with per-key ordering
 * the relay does not lease events written by transactions that started after it (the lease guard
 * waits until every older writer has finished), so publishing stalls.
 *
 * @param pid             the backend's process id (for {@code pg_terminate_backend})
 * @param applicationName the client's {@code application_name}; empty when it set none
 * @param state           the backend's state, e.g. {@code idle in transaction}
 * @param transactionStart when the transaction began
 * @param age             how long it has been open at the time of the probe
 * @param xidAge          how many transaction ids old its xid or snapshot xmin is ({@code age(xid)})
 */
public record OpenTransaction(int pid, String applicationName, String state, Instant transactionStart, Duration age,
        long xidAge) {

    public OpenTransaction {
        Objects.requireNonNull(applicationName, "applicationName");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(transactionStart, "transactionStart");
        Objects.requireNonNull(age, "age");
    }

    /** One line for logs and health details. */
    public String describe() {
        return "pid " + pid + (applicationName.isEmpty() ? "" : " (" + applicationName + ")") + ", " + state
                + ", open " + age.toMillis() / 1000.0 + "s since " + transactionStart + ", " + xidAge
                + " transaction ids old";
    }
}
