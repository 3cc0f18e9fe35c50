package dev.outboxjava.relayapp.internal.cli;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.port.Backlog;
import dev.outboxjava.core.port.WorkerHeartbeat;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.postgres.health.DatabaseHealthReport;
import dev.outboxjava.postgres.health.OpenTransaction;
import dev.outboxjava.postgres.health.PostgresHealthProbe;
import dev.outboxjava.postgres.health.PreparedTransaction;
import dev.outboxjava.postgres.health.ReplicationSlotHold;
import dev.outboxjava.postgres.health.TableStatistics;
import dev.outboxjava.relayapp.DatabaseConfig;
import dev.outboxjava.relayapp.RelayAppConfig;
import dev.outboxjava.worker.HealthConfig;
import dev.outboxjava.worker.observability.DatabaseSignals;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code status}: events per state, the oldest pending event's age, and how far the relay is behind. */
@Command(
        name = "status",
        mixinStandardHelpOptions = true,
        description = {
            "Shows how many events are in each state, the age of the oldest pending event, and the "
                    + "relay lag (events appended but not yet sent: pending + in_flight); the pending events by what "
                    + "they wait for (eligible now, with how long the oldest has been due; retrying; scheduled; held "
                    + "behind an earlier event of their key); then the database health "
                    + "signals: dead tuples, size and last vacuum of the outbox's tables (with the append-only layout "
                    + "their sum, then one table_stats line per table), the oldest open transaction holding back the "
                    + "xmin horizon (pid, application, client, state, start), the horizon's age and what holds it "
                    + "(that session, a prepared transaction or a replication slot), the prepared transactions and "
                    + "the replication slots holding it, the inbox table's size, and whether the thresholds "
                    + "(outbox.health.*) say ready.",
            "One 'name value' pair per line, easy to parse."
        })
public final class StatusCommand implements Callable<Integer> {

    /** The most workers listed. */
    private static final int MAX_WORKERS = 100;

    @Mixin
    ConfigOptions config;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        RelayAppConfig settings = config.load(RelayAppConfig.Requirement.DATABASE);
        DatabaseConfig database = settings.requireDatabase();
        try (StoreSession session =
                StoreSession.open(database, settings.worker().relay().ordering())) {
            Map<EventStatus, Long> counts = session.store().countByStatus();
            Optional<Instant> oldest = session.store().oldestPendingCreatedAt();
            Instant now = Clock.systemUTC().instant();
            PrintWriter out = spec.commandLine().getOut();
            out.printf("%-20s %s%n", "table", database.table());
            for (EventStatus status : EventStatus.values()) {
                out.printf("%-20s %d%n", status.databaseValue(), counts.getOrDefault(status, 0L));
            }
            out.printf(
                    "%-20s %s%n",
                    "oldest_pending_age",
                    oldest.map(created -> formatAge(Duration.between(created, now)) + " (created " + created + ")")
                            .orElse("none"));
            long lag = counts.getOrDefault(EventStatus.PENDING, 0L) + counts.getOrDefault(EventStatus.IN_FLIGHT, 0L);
            out.printf("%-20s %d%n", "relay_lag_events", lag);
            Backlog backlog = session.store().backlog(now);
            out.printf("%-20s %d%n", "eligible", backlog.eligible());
            out.printf(
                    "%-20s %s%n",
                    "oldest_eligible_wait",
                    backlog.oldestEligibleSince()
                            .map(since -> formatAge(Duration.between(since, now)) + " (due since " + since + ")")
                            .orElse("none"));
            out.printf("%-20s %d%n", "retrying", backlog.retrying());
            out.printf("%-20s %d%n", "scheduled", backlog.scheduled());
            out.printf("%-20s %d%n", "held", backlog.held());
            HealthConfig thresholds = settings.health();
            DatabaseSignals signals = new DatabaseSignals(
                    backlog,
                    PostgresHealthProbe.create(
                                    session.dataSource(),
                                    database.table(),
                                    session.store().config().layout(),
                                    thresholds.inboxTable())
                            .read(now));
            DatabaseHealthReport report = signals.report();
            report.outbox().ifPresent(table -> {
                out.printf("%-20s %d%n", "live_tuples", table.liveTuples());
                out.printf("%-20s %d%n", "dead_tuples", table.deadTuples());
                out.printf("%-20s %d%n", "table_size_bytes", table.totalBytes());
                out.printf(
                        "%-20s %s%n",
                        "last_autovacuum",
                        table.lastAutovacuum().map(Instant::toString).orElse("never"));
                out.printf(
                        "%-20s %s%n",
                        "last_vacuum", table.lastVacuum().map(Instant::toString).orElse("never"));
            });
            if (report.outboxTables().size() > 1) {
                // the append-only layout: the figures above are its tables' together, these each one's
                for (TableStatistics table : report.outboxTables()) {
                    out.printf("%-20s %s%n", "table_stats", describe(table));
                }
            }
            out.printf(
                    "%-20s %s%n",
                    "oldest_transaction",
                    report.oldestTransaction().map(OpenTransaction::describe).orElse("none"));
            out.printf(
                    "%-20s %s%n",
                    "xmin_horizon",
                    report.xminHorizon()
                            .map(DatabaseHealthReport.HorizonHolder::describe)
                            .orElse("not held"));
            out.printf(
                    "%-20s %s%n",
                    "prepared_xacts",
                    report.preparedTransactions().isEmpty()
                            ? "none"
                            : report.preparedTransactions().stream()
                                    .map(PreparedTransaction::describe)
                                    .collect(Collectors.joining("; ")));
            out.printf(
                    "%-20s %s%n",
                    "replication_slots",
                    report.replicationSlots().isEmpty()
                            ? "none holding"
                            : report.replicationSlots().stream()
                                    .map(ReplicationSlotHold::describe)
                                    .collect(Collectors.joining("; ")));
            out.printf(
                    "%-20s %s%n",
                    "inbox_rows",
                    report.inbox().map(t -> Long.toString(t.liveTuples())).orElse("none"));
            out.printf(
                    "%-20s %s%n",
                    "inbox_size_bytes",
                    report.inbox().map(t -> Long.toString(t.totalBytes())).orElse("none"));
            for (String line : WorkerLines.of(workers(session.store()), now)) {
                out.println(line);
            }
            HealthCheck verdict = signals.evaluate(thresholds);
            out.printf("%-20s %s%n", "ready", (verdict.healthy() ? "yes" : "no") + " (" + verdict.detail() + ")");
            out.flush();
            return verdict.healthy() ? ExitCodes.OK : ExitCodes.NOT_READY;
        }
    }

    /** The workers' heartbeats; none when their table is missing (the heartbeat is off then). */
    private static List<WorkerHeartbeat> workers(PostgresOutboxStore store) {
        return store.heartbeats().unavailable().isPresent() ? List.of() : store.workers(MAX_WORKERS);
    }

    /** One table of the outbox on one line, e.g. {@code outbox_events_state: live 3, dead 120000, ...}. */
    private static String describe(TableStatistics table) {
        return table.table() + ": live " + table.liveTuples() + ", dead " + table.deadTuples() + ", size_bytes "
                + table.totalBytes() + ", last_autovacuum "
                + table.lastAutovacuum().map(Instant::toString).orElse("never") + ", last_vacuum "
                + table.lastVacuum().map(Instant::toString).orElse("never");
    }

    private static String formatAge(Duration age) {
        Duration positive = age.isNegative() ? Duration.ZERO : age;
        return String.format("%.3fs", positive.toMillis() / 1000.0);
    }
}
