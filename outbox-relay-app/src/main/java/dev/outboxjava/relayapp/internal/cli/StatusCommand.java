package dev.outboxjava.relayapp.internal.cli;

import com.zaxxer.hikari.HikariDataSource;
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
import dev.outboxjava.relayapp.ConfigKey;
import dev.outboxjava.relayapp.DatabaseConfig;
import dev.outboxjava.relayapp.RelayAppConfig;
import dev.outboxjava.relayapp.internal.DataSources;
import dev.outboxjava.worker.Durations;
import dev.outboxjava.worker.HealthConfig;
import dev.outboxjava.worker.observability.DatabaseSignals;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code status}: events per state, the oldest pending event's age, and how far the relay is behind; with many
 * outboxes a block per outbox, then a summary over all of them and the database-wide signals once.
 */
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
            "One 'name value' pair per line, easy to parse.",
            "Many outboxes (outbox.tables, or outbox.discovery.schema.pattern, looked up in the database now): "
                    + "a block per outbox, started by the line 'outbox SCHEMA.TABLE', with that outbox's lines "
                    + "(states, ages, lag, backlog, table statistics, workers) and 'behind yes|no' (its lag over "
                    + "outbox.health.max.lag), or 'missing yes' when its table does not exist; then the line "
                    + "'summary N outbox(es)' and the totals over all (states, oldest_pending_age with the outbox "
                    + "it is in, relay_lag_events, 'behind' and 'missing' naming the outboxes or 'none'); then the "
                    + "database-wide signals, once, and 'ready' over all (not ready while an outbox is behind or "
                    + "missing)."
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
        PrintWriter out = spec.commandLine().getOut();
        int exit = settings.outboxes().isPresent() ? many(settings, out) : one(settings, out);
        out.flush();
        return exit;
    }

    /** The one table of {@code outbox.table}: its lines, the database's, its workers, the verdict. */
    private static int one(RelayAppConfig settings, PrintWriter out) {
        DatabaseConfig database = settings.requireDatabase();
        HealthConfig thresholds = settings.health();
        try (StoreSession session =
                StoreSession.open(database, settings.worker().relay().ordering())) {
            Instant now = Clock.systemUTC().instant();
            OutboxReading reading = OutboxReading.of(session, database, thresholds, now);
            line(out, "table", database.table());
            printOutbox(out, reading, now);
            printDatabase(out, reading.signals().report());
            printWorkers(out, session.store(), now);
            HealthCheck verdict = reading.signals().evaluate(thresholds);
            line(out, "ready", (verdict.healthy() ? "yes" : "no") + " (" + verdict.detail() + ")");
            return verdict.healthy() ? ExitCodes.OK : ExitCodes.NOT_READY;
        }
    }

    /**
     * Many outboxes: a block per outbox (its {@code outbox} line, then its figures, workers and whether it is
     * behind), then the {@code summary} over all of them, the database-wide signals once, and the verdict.
     */
    private static int many(RelayAppConfig settings, PrintWriter out) {
        DatabaseConfig database = settings.requireDatabase();
        HealthConfig thresholds = settings.health();
        ConfiguredOutboxes outboxes = ConfiguredOutboxes.resolve(settings);
        DatabaseProbe.requireReachable(database);
        Instant now = Clock.systemUTC().instant();
        Summary summary = new Summary();
        for (ConfiguredOutboxes.Outbox outbox : outboxes.all()) {
            line(out, "outbox", outbox.name());
            if (DatabaseProbe.isOutboxTableMissing(outbox.database())) {
                // one tenant's missing table must not hide the others' figures
                line(
                        out,
                        "missing",
                        "yes (create it with 'outbox-worker schema --table " + outbox.name()
                                + "' or 'run --ensure-schema', or remove it from "
                                + ConfigKey.TABLES.property() + ")");
                summary.missing.add(outbox.name());
                continue;
            }
            try (StoreSession session = StoreSession.open(
                    outbox.database(), settings.worker().relay().ordering())) {
                OutboxReading reading = OutboxReading.of(session, outbox.database(), thresholds, now);
                printOutbox(out, reading, now);
                printWorkers(out, session.store(), now);
                Duration lag = reading.signals().lag();
                boolean behind = isBehind(lag, thresholds);
                line(
                        out,
                        "behind",
                        behind
                                ? "yes (the oldest eligible event has waited " + formatAge(lag) + ", over "
                                        + "outbox.health.max.lag=" + Durations.format(thresholds.maxLag()) + ")"
                                : "no");
                summary.add(outbox.name(), reading, behind);
            }
        }
        line(out, "summary", outboxes.all().size() + " outbox(es)");
        for (EventStatus status : EventStatus.values()) {
            line(out, status.databaseValue(), Long.toString(summary.counts.getOrDefault(status, 0L)));
        }
        line(
                out,
                "oldest_pending_age",
                summary.oldestPending
                        .map(created -> formatAge(Duration.between(created, now)) + " (created " + created + ", in "
                                + summary.oldestPendingIn + ")")
                        .orElse("none"));
        line(out, "relay_lag_events", Long.toString(summary.lag()));
        line(out, "behind", summary.behind.isEmpty() ? "none" : String.join(", ", summary.behind));
        line(out, "missing", summary.missing.isEmpty() ? "none" : String.join(", ", summary.missing));
        DatabaseHealthReport databaseWide = databaseWide(database, thresholds, now);
        printDatabase(out, databaseWide);
        // the thresholds over all outboxes at once: the lag is the longest wait of any, the horizon counted once
        HealthCheck verdict = new DatabaseSignals(summary.backlog(), databaseWide).evaluate(thresholds);
        boolean ready = verdict.healthy() && summary.missing.isEmpty();
        String detail = verdict.detail()
                + (summary.behind.isEmpty() ? "" : "; behind: " + String.join(", ", summary.behind))
                + (summary.missing.isEmpty() ? "" : "; missing outbox table(s): " + String.join(", ", summary.missing));
        line(out, "ready", (ready ? "yes" : "no") + " (" + detail + ")");
        return ready ? ExitCodes.OK : ExitCodes.NOT_READY;
    }

    /** Whether an outbox's lag is over {@code outbox.health.max.lag} (zero: never), as the worker of many says. */
    private static boolean isBehind(Duration lag, HealthConfig thresholds) {
        return !thresholds.maxLag().isZero() && lag.compareTo(thresholds.maxLag()) > 0;
    }

    /** The database-wide signals (transactions, horizon, slots, inbox), read once for all outboxes. */
    private static DatabaseHealthReport databaseWide(DatabaseConfig database, HealthConfig thresholds, Instant now) {
        try (HikariDataSource pool = DataSources.pool(new DatabaseConfig(
                database.url(),
                database.user(),
                database.password(),
                1,
                database.table(),
                database.completionMode(),
                database.layout()))) {
            // the table's own figures are the outboxes' business, printed in their blocks; a missing one reads empty
            return PostgresHealthProbe.create(pool, database.table(), database.layout(), thresholds.inboxTable())
                    .read(now);
        }
    }

    /** One outbox's figures, read at one instant. */
    private record OutboxReading(
            Map<EventStatus, Long> counts, Optional<Instant> oldestPending, DatabaseSignals signals) {

        static OutboxReading of(StoreSession session, DatabaseConfig database, HealthConfig thresholds, Instant now) {
            Map<EventStatus, Long> counts = session.store().countByStatus();
            Optional<Instant> oldest = session.store().oldestPendingCreatedAt();
            Backlog backlog = session.store().backlog(now);
            DatabaseSignals signals = new DatabaseSignals(
                    backlog,
                    PostgresHealthProbe.create(
                                    session.dataSource(),
                                    database.table(),
                                    session.store().config().layout(),
                                    thresholds.inboxTable())
                            .read(now));
            return new OutboxReading(counts, oldest, signals);
        }

        long lag() {
            return counts.getOrDefault(EventStatus.PENDING, 0L) + counts.getOrDefault(EventStatus.IN_FLIGHT, 0L);
        }
    }

    /** The figures over all outboxes: totals, the oldest pending event, the backlogs together. */
    private static final class Summary {
        final Map<EventStatus, Long> counts = new EnumMap<>(EventStatus.class);
        final List<String> behind = new ArrayList<>();
        final List<String> missing = new ArrayList<>();
        Optional<Instant> oldestPending = Optional.empty();
        String oldestPendingIn = "";
        private Backlog backlog = Backlog.EMPTY;

        void add(String name, OutboxReading reading, boolean isBehind) {
            reading.counts().forEach((status, count) -> counts.merge(status, count, Long::sum));
            if (reading.oldestPending().isPresent()
                    && (oldestPending.isEmpty() || reading.oldestPending().get().isBefore(oldestPending.get()))) {
                oldestPending = reading.oldestPending();
                oldestPendingIn = name;
            }
            Backlog other = reading.signals().backlog();
            Optional<Instant> since = backlog.oldestEligibleSince().isEmpty()
                    ? other.oldestEligibleSince()
                    : other.oldestEligibleSince()
                            .filter(instant -> instant.isBefore(
                                    backlog.oldestEligibleSince().get()))
                            .or(backlog::oldestEligibleSince);
            backlog = new Backlog(
                    backlog.eligible() + other.eligible(),
                    since,
                    backlog.retrying() + other.retrying(),
                    backlog.scheduled() + other.scheduled(),
                    backlog.held() + other.held());
            if (isBehind) {
                behind.add(name);
            }
        }

        long lag() {
            return counts.getOrDefault(EventStatus.PENDING, 0L) + counts.getOrDefault(EventStatus.IN_FLIGHT, 0L);
        }

        Backlog backlog() {
            return backlog;
        }
    }

    /** The outbox's own lines: events per state, the oldest pending, the lag, the backlog, its tables' statistics. */
    private static void printOutbox(PrintWriter out, OutboxReading reading, Instant now) {
        for (EventStatus status : EventStatus.values()) {
            out.printf("%-20s %d%n", status.databaseValue(), reading.counts().getOrDefault(status, 0L));
        }
        out.printf(
                "%-20s %s%n",
                "oldest_pending_age",
                reading.oldestPending()
                        .map(created -> formatAge(Duration.between(created, now)) + " (created " + created + ")")
                        .orElse("none"));
        out.printf("%-20s %d%n", "relay_lag_events", reading.lag());
        Backlog backlog = reading.signals().backlog();
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
        DatabaseHealthReport report = reading.signals().report();
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
    }

    /** The database-wide lines: the oldest transaction, the horizon and what holds it, the inbox. */
    private static void printDatabase(PrintWriter out, DatabaseHealthReport report) {
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
    }

    private static void printWorkers(PrintWriter out, PostgresOutboxStore store, Instant now) {
        for (String line : WorkerLines.of(workers(store), now)) {
            out.println(line);
        }
    }

    private static void line(PrintWriter out, String name, String value) {
        out.printf("%-20s %s%n", name, value);
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
