package dev.outboxjava.worker.observability;

import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.postgres.health.DatabaseHealthReport;
import dev.outboxjava.postgres.health.OpenTransaction;
import dev.outboxjava.worker.ConfigKey;
import dev.outboxjava.worker.Durations;
import dev.outboxjava.worker.HealthConfig;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One reading of the database health signals (the oldest pending event plus the PostgreSQL
 * statistics) and the verdict of the configured thresholds on it.
 *
 * @param oldestPending when the oldest pending event was created; empty when nothing is pending
 * @param report        the PostgreSQL statistics read at the same time
 */
public record DatabaseSignals(Optional<Instant> oldestPending, DatabaseHealthReport report) {

    public DatabaseSignals {
        Objects.requireNonNull(oldestPending, "oldestPending");
        Objects.requireNonNull(report, "report");
    }

    /** The age of the oldest pending event when the report was taken; zero when nothing is pending. */
    public Duration lag() {
        return oldestPending.map(created -> Duration.between(created, report.takenAt()))
                .filter(age -> !age.isNegative()).orElse(Duration.ZERO);
    }

    /**
     * Ready unless the lag or the oldest open transaction is over its threshold (a zero threshold
     * never fails); the detail names each breach and the setting that bounds it.
     */
    public HealthCheck evaluate(HealthConfig thresholds) {
        List<String> breaches = new ArrayList<>();
        Duration lag = lag();
        if (!thresholds.maxLag().isZero() && lag.compareTo(thresholds.maxLag()) > 0) {
            breaches.add("oldest pending event is " + seconds(lag) + " old, over " + ConfigKey.HEALTH_MAX_LAG.property()
                    + "=" + Durations.format(thresholds.maxLag()));
        }
        Optional<OpenTransaction> oldest = report.oldestTransaction();
        if (!thresholds.maxXminAge().isZero() && oldest.isPresent()
                && oldest.get().age().compareTo(thresholds.maxXminAge()) > 0) {
            breaches.add("a transaction holds back the xmin horizon (vacuum of the outbox and per-key publishing "
                    + "wait for it): " + oldest.get().describe() + ", over " + ConfigKey.HEALTH_MAX_XMIN_AGE.property()
                    + "=" + Durations.format(thresholds.maxXminAge()));
        }
        if (breaches.isEmpty()) {
            return HealthCheck.up("database signals: lag " + seconds(lag) + ", oldest transaction "
                    + oldest.map(t -> seconds(t.age())).orElse("none"));
        }
        return HealthCheck.down("database signals: " + String.join("; ", breaches));
    }

    private static String seconds(Duration duration) {
        return String.format(java.util.Locale.ROOT, "%.3fs", duration.toMillis() / 1000.0);
    }
}
