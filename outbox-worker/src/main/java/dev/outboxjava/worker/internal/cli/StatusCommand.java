package dev.outboxjava.worker.internal.cli;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.worker.DatabaseConfig;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code status}: events per state, the oldest pending event's age, and how far the relay is behind. */
@Command(name = "status", mixinStandardHelpOptions = true,
        description = {"Shows how many events are in each state, the age of the oldest pending event, and the "
                + "relay lag (events appended but not yet sent: pending + in_flight).",
                "One 'name value' pair per line, easy to parse."})
public final class StatusCommand implements Callable<Integer> {

    @Mixin
    ConfigOptions config;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        DatabaseConfig database = config.load().requireDatabase();
        try (StoreSession session = StoreSession.open(database)) {
            Map<EventStatus, Long> counts = session.store().countByStatus();
            Optional<Instant> oldest = session.store().oldestPendingCreatedAt();
            Instant now = Clock.systemUTC().instant();
            PrintWriter out = spec.commandLine().getOut();
            out.printf("%-20s %s%n", "table", database.table());
            for (EventStatus status : EventStatus.values()) {
                out.printf("%-20s %d%n", status.databaseValue(), counts.getOrDefault(status, 0L));
            }
            out.printf("%-20s %s%n", "oldest_pending_age", oldest
                    .map(created -> formatAge(Duration.between(created, now)) + " (created " + created + ")")
                    .orElse("none"));
            long lag = counts.getOrDefault(EventStatus.PENDING, 0L) + counts.getOrDefault(EventStatus.IN_FLIGHT, 0L);
            out.printf("%-20s %d%n", "relay_lag_events", lag);
            out.flush();
        }
        return ExitCodes.OK;
    }

    private static String formatAge(Duration age) {
        Duration positive = age.isNegative() ? Duration.ZERO : age;
        return String.format("%.3fs", positive.toMillis() / 1000.0);
    }
}
