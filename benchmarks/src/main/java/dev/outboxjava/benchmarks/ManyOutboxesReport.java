package dev.outboxjava.benchmarks;

import java.util.List;
import java.util.Locale;

/**
 * Scenario 10's rows: per number of outboxes, the drain of one worker of many outboxes beside one worker per
 * table, the spread of each, and the idle cost of each beside the other's (the database's scans as a detail).
 */
final class ManyOutboxesReport {

    private ManyOutboxesReport() {}

    static void report(List<ManyOutboxesScenario.Run> runs, ResultTable table) {
        for (ManyOutboxesScenario.Run many : runs) {
            if (many.relay() != ManyOutboxesScenario.Relay.MANY) {
                continue;
            }
            ManyOutboxesScenario.Run perTable = runs.stream()
                    .filter(run ->
                            run.outboxes() == many.outboxes() && run.relay() == ManyOutboxesScenario.Relay.PER_TABLE)
                    .findFirst()
                    .orElseThrow();
            String scenario = String.format(Locale.ROOT, "10 many outboxes, %d", many.outboxes());
            table.compare(
                    scenario,
                    "drain, " + many.relay().display() + complete(many),
                    rate(many.eventsPerSecond()),
                    perTable.relay().display() + complete(perTable) + ": " + rate(perTable.eventsPerSecond()),
                    String.format(Locale.ROOT, "%.2fx", many.eventsPerSecond() / perTable.eventsPerSecond()));
            table.compare(
                    scenario,
                    "spread: least-most published over an equal share, "
                            + many.relay().display(),
                    spread(many),
                    perTable.relay().display() + ": " + spread(perTable),
                    "");
            table.compare(
                    scenario,
                    "idle: queries the relay sent per second, " + many.relay().display(),
                    perSecond(many.idleQueriesPerSecond(), "queries"),
                    perTable.relay().display() + ": " + perSecond(perTable.idleQueriesPerSecond(), "queries"),
                    ratio(many.idleQueriesPerSecond(), perTable.idleQueriesPerSecond()));
            table.detail(
                    scenario,
                    "idle: scans of the outboxes' tables per second (pg_stat_user_tables), many / per table",
                    perSecond(many.idleScansPerSecond(), "scans") + " / "
                            + perSecond(perTable.idleScansPerSecond(), "scans"));
        }
    }

    private static String ratio(double value, double reference) {
        return reference > 0 ? String.format(Locale.ROOT, "%.2fx", value / reference) : "";
    }

    private static String complete(ManyOutboxesScenario.Run run) {
        return run.complete() ? "" : " (not drained in time)";
    }

    private static String rate(double eventsPerSecond) {
        return String.format(Locale.ROOT, "%,.0f events/s", eventsPerSecond);
    }

    private static String spread(ManyOutboxesScenario.Run run) {
        return String.format(Locale.ROOT, "%.2f-%.2f", run.minShare(), run.maxShare());
    }

    private static String perSecond(double perSecond, String what) {
        return String.format(Locale.ROOT, "%.1f %s/s", perSecond, what);
    }
}
