package dev.outboxjava.relayapp.internal.cli;

import dev.outboxjava.core.port.WorkerHeartbeat;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;

/** The table's workers as {@code status} prints them: one line each, running or gone, times to the millisecond. */
final class WorkerLines {

    private static final DateTimeFormatter MILLIS = DateTimeFormatter.ofPattern(
                    "yyyy-MM-dd'T'HH:mm:ss.SSS'Z'", Locale.ROOT)
            .withZone(ZoneOffset.UTC);

    private WorkerLines() {}

    /** The lines, each starting {@code worker}; one saying {@code none} when no worker beats. */
    static List<String> of(List<WorkerHeartbeat> workers, Instant now) {
        if (workers.isEmpty()) {
            return List.of(String.format("%-20s %s", "workers", "none beating"));
        }
        return workers.stream().map(worker -> line(worker, now)).toList();
    }

    static String line(WorkerHeartbeat worker, Instant now) {
        String state = worker.isGone(now)
                ? "gone (no beat for " + seconds(Duration.between(worker.beatAt(), now)) + ")"
                : "running";
        return String.format(
                "%-20s %s %s: %s on %s, version %s, %d relay thread(s), ordering %s, layout %s, started %s,"
                        + " last beat %s, last lease %s, last error %s",
                "worker",
                worker.workerId().toString().substring(0, 8),
                state,
                Terminal.line(worker.process()),
                Terminal.line(worker.host()),
                Terminal.line(worker.version()),
                worker.relayThreads(),
                worker.ordering(),
                worker.layout(),
                MILLIS.format(worker.startedAt()),
                MILLIS.format(worker.beatAt()),
                worker.lastLeaseAt().map(MILLIS::format).orElse("never"),
                worker.lastError()
                        .map(error -> MILLIS.format(error.at()) + " " + Terminal.line(error.detail()))
                        .orElse("none"));
    }

    private static String seconds(Duration duration) {
        return String.format(Locale.ROOT, "%.3fs", Math.max(0, duration.toMillis()) / 1000.0);
    }
}
