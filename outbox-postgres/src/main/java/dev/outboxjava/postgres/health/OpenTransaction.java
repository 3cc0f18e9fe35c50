package dev.outboxjava.postgres.health;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import java.util.Optional;

/**
 * The open transaction of the database that holds the xmin horizon back the furthest (from
 * {@code pg_stat_activity}), with what an operator needs to find its owner. While it stays open,
 * VACUUM cannot remove rows that died after it started (dead tuples of the outbox pile up and
 * polling slows down), and with per-key ordering the relay does not lease events written by
 * transactions that started after it (the lease guard waits until every older writer has
 * finished), so publishing stalls.
 *
 * @param pid              the backend's process id (for {@code pg_terminate_backend})
 * @param applicationName  the client's {@code application_name}; empty when it set none
 * @param clientAddress    the client's address and port, e.g. {@code 10.0.0.5:51234}; empty for a
 *                         Unix-socket connection or a background process
 * @param user             the database user the session logged in as; empty when unknown
 * @param state            the backend's state, e.g. {@code idle in transaction}
 * @param transactionStart when the transaction began
 * @param queryStart       when its current (or, when idle, its last) statement began; empty when unknown
 * @param age              how long it has been open at the time of the probe
 * @param xidAge           how many transaction ids old its xid or snapshot xmin is ({@code age(xid)})
 */
public record OpenTransaction(
        int pid,
        String applicationName,
        String clientAddress,
        String user,
        String state,
        Instant transactionStart,
        Optional<Instant> queryStart,
        Duration age,
        long xidAge) {

    public OpenTransaction {
        Objects.requireNonNull(applicationName, "applicationName");
        Objects.requireNonNull(clientAddress, "clientAddress");
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(transactionStart, "transactionStart");
        Objects.requireNonNull(queryStart, "queryStart");
        Objects.requireNonNull(age, "age");
    }

    /**
     * One line for logs and health details, e.g. {@code pid 4711 (billing-report), idle in transaction,
     * client 10.0.0.5:51234, user report, open 754.2s since 2026-11-25T10:00:00Z, last query started
     * 2026-11-25T10:00:01Z, 81234 transaction ids old} (times to the millisecond). The statement's text is left
     * out: it may carry
     * data that does not belong in logs.
     */
    public String describe() {
        return "pid " + pid + (applicationName.isEmpty() ? "" : " (" + applicationName + ")") + ", " + state
                + ", client " + (clientAddress.isEmpty() ? "local socket" : clientAddress)
                + (user.isEmpty() ? "" : ", user " + user)
                + ", open " + age.toMillis() / 1000.0 + "s since " + transactionStart.truncatedTo(ChronoUnit.MILLIS)
                + queryStart
                        .map(at -> ", last query started " + at.truncatedTo(ChronoUnit.MILLIS))
                        .orElse("")
                + ", " + xidAge + " transaction ids old";
    }
}
