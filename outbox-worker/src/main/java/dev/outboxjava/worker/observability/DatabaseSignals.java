package dev.outboxjava.worker.observability;

import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.port.Backlog;
import dev.outboxjava.postgres.health.DatabaseHealthReport;
import dev.outboxjava.postgres.health.OpenTransaction;
import dev.outboxjava.postgres.health.PreparedTransaction;
import dev.outboxjava.postgres.health.ReplicationSlotHold;
import dev.outboxjava.worker.Durations;
import dev.outboxjava.worker.HealthConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * One reading of the database health signals (the backlog plus the PostgreSQL statistics) and the
 * verdict of the configured thresholds on it.
 *
 * <p>The lag is about progress: how long the eligible event that has waited longest has been due
 * ({@link Backlog#oldestEligibleWait}). Events waiting for a retry, scheduled for later, or held back by
 * an earlier event of their key wait by design; they are reported, and never make the worker not ready.
 *
 * @param backlog the pending events by what they wait for
 * @param report  the PostgreSQL statistics read at the same time
 */
public record DatabaseSignals(Backlog backlog, DatabaseHealthReport report) {

    public DatabaseSignals {
        Objects.requireNonNull(backlog, "backlog");
        Objects.requireNonNull(report, "report");
    }

    /** How long the oldest eligible event had been due when the report was taken; zero when none is eligible. */
    public Duration lag() {
        return backlog.oldestEligibleWait(report.takenAt());
    }

    /**
     * Ready unless the lag, the oldest open transaction or a prepared transaction is over its threshold
     * (a zero threshold never fails); the detail names each breach, the session or transaction behind
     * it and the setting that bounds it, and counts the events that wait by design. A replication slot
     * holding the horizon is named in the detail but never makes the worker not ready: a slot carries
     * no time to judge, and a standby's slot holds it by design.
     */
    public HealthCheck evaluate(HealthConfig thresholds) {
        List<String> breaches = new ArrayList<>();
        Duration lag = lag();
        if (!thresholds.maxLag().isZero() && lag.compareTo(thresholds.maxLag()) > 0) {
            breaches.add("the oldest eligible event (due, not held back by its key) has waited " + seconds(lag)
                    + ", over " + "outbox.health.max.lag=" + Durations.format(thresholds.maxLag()));
        }
        Optional<OpenTransaction> oldest = report.oldestTransaction();
        String over = ", over " + "outbox.health.max.xmin.age=" + Durations.format(thresholds.maxXminAge());
        if (overXminAge(thresholds, oldest.map(OpenTransaction::age))) {
            breaches.add("a transaction holds back the xmin horizon (vacuum of the outbox and per-key publishing "
                    + "wait for it): " + oldest.get().describe() + over);
        }
        for (PreparedTransaction prepared : report.preparedTransactions()) {
            if (overXminAge(thresholds, Optional.of(prepared.age()))) {
                breaches.add("a prepared transaction holds back the xmin horizon (end it with COMMIT PREPARED or "
                        + "ROLLBACK PREPARED): " + prepared.describe() + over);
            }
        }
        String slots = slotsHoldingTables();
        if (breaches.isEmpty()) {
            return HealthCheck.up("database signals: lag " + seconds(lag) + " (" + counts() + "), oldest transaction "
                    + oldest.map(t -> seconds(t.age()) + " (pid " + t.pid() + ")")
                            .orElse("none") + slots);
        }
        return HealthCheck.down("database signals: " + String.join("; ", breaches) + " (" + counts() + ")" + slots);
    }

    private static boolean overXminAge(HealthConfig thresholds, Optional<Duration> age) {
        return !thresholds.maxXminAge().isZero() && age.isPresent() && age.get().compareTo(thresholds.maxXminAge()) > 0;
    }

    /** The slots holding the outbox table's horizon, as a clause of the detail; empty when none. */
    private String slotsHoldingTables() {
        List<String> slots = report.replicationSlots().stream()
                .filter(ReplicationSlotHold::holdsTables)
                .map(ReplicationSlotHold::describe)
                .toList();
        return slots.isEmpty() ? "" : "; held by " + String.join("; ", slots);
    }

    private String counts() {
        return "eligible " + backlog.eligible() + ", retrying " + backlog.retrying() + ", scheduled "
                + backlog.scheduled() + ", held " + backlog.held();
    }

    private static String seconds(Duration duration) {
        return String.format(Locale.ROOT, "%.3fs", duration.toMillis() / 1000.0);
    }
}
