package dev.outboxjava.relayapp.internal;

import dev.outboxjava.console.ActivitySampler;
import dev.outboxjava.console.HealthSignal;
import dev.outboxjava.console.OutboxConsole;
import dev.outboxjava.core.port.Backlog;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.postgres.health.DatabaseHealthReport;
import dev.outboxjava.postgres.health.OpenTransaction;
import dev.outboxjava.postgres.health.PostgresHealthProbe;
import dev.outboxjava.postgres.health.TableStatistics;
import dev.outboxjava.relayapp.ConfigKey;
import dev.outboxjava.relayapp.ConsoleConfig;
import dev.outboxjava.relayapp.HttpConfig;
import dev.outboxjava.relayapp.RelayAppConfig;
import dev.outboxjava.worker.Durations;
import dev.outboxjava.worker.HealthConfig;
import dev.outboxjava.worker.observability.DatabaseSignals;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.lang.management.ManagementFactory;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The web console of the standalone process: the store's operator API, the activity sampled from the
 * process's own published counter, the database health signals judged by the readiness thresholds,
 * and this process's facts.
 */
public final class StandaloneConsole implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(StandaloneConsole.class);
    /** The console's way of writing a time: UTC, to the millisecond. */
    private static final DateTimeFormatter SINCE = DateTimeFormatter.ofPattern(
                    "uuuu-MM-dd HH:mm:ss.SSS 'UTC'", java.util.Locale.ROOT)
            .withZone(ZoneOffset.UTC);
    /** The alert rules' thresholds for dead tuples (OutboxDeadTuplesHigh). */
    private static final long DEAD_TUPLES_FLOOR = 100_000;

    private static final double DEAD_TUPLES_SHARE = 0.2;

    private final ActivitySampler sampler;
    private final OutboxConsole console;

    private StandaloneConsole(ActivitySampler sampler, OutboxConsole console) {
        this.sampler = sampler;
        this.console = console;
    }

    /**
     * The console when {@code outbox.console.enabled}, empty otherwise: built before the database is
     * reached, so that the HTTP server serves it from its start (its pages say so while the database is
     * down); {@link #start()} starts sampling once the worker runs.
     */
    public static Optional<StandaloneConsole> createIfEnabled(
            RelayAppConfig settings, PostgresOutboxStore store, MeterRegistry registry) {
        ConsoleConfig config = settings.console();
        if (!config.enabled()) {
            return Optional.empty();
        }
        Clock clock = Clock.systemUTC();
        ActivitySampler sampler = new ActivitySampler(store, () -> publishedTotal(registry), clock);
        HealthConfig thresholds = settings.health();
        PostgresHealthProbe probe = PostgresHealthProbe.create(
                store.dataSource(), store.config().tableName(), store.config().layout(), thresholds.inboxTable());
        Instant started = clock.instant();
        OutboxConsole console = OutboxConsole.builder(store)
                .adminCredential(config.adminToken().orElse(null))
                .allowRemoteClients(config.allowRemote())
                .clock(clock)
                .sampler(sampler)
                .healthSignals(() -> signals(store, probe, thresholds, clock.instant()))
                .processFacts(() -> facts(settings, started))
                .build();
        return Optional.of(new StandaloneConsole(sampler, console));
    }

    /** The console, to mount on the process's HTTP server. */
    public OutboxConsole console() {
        return console;
    }

    /** Starts sampling the activity the overview charts, and says where the console is. */
    public void start(HttpConfig http, int port) {
        sampler.start();
        String host = "0.0.0.0".equals(http.host()) || "::".equals(http.host()) ? "127.0.0.1" : http.host();
        log.info(
                "web console at http://{}:{}{} ({}; {})",
                host,
                port,
                console.basePath(),
                console.writable()
                        ? "changes need the admin credential"
                        : "read-only: " + ConfigKey.CONSOLE_ADMIN_TOKEN.property() + " is not set",
                settings(http));
    }

    private String settings(HttpConfig http) {
        return console.allowsRemoteClients()
                ? "clients from any address"
                : "clients on this machine only (" + ConfigKey.CONSOLE_ALLOW_REMOTE.property() + "=false)";
    }

    private static long publishedTotal(MeterRegistry registry) {
        return (long) registry.find("outbox.events.published").counters().stream()
                .mapToDouble(Counter::count)
                .sum();
    }

    static List<HealthSignal> signals(
            PostgresOutboxStore store, PostgresHealthProbe probe, HealthConfig thresholds, Instant now) {
        Backlog backlog = store.backlog(now);
        DatabaseHealthReport report = probe.read(now);
        DatabaseSignals signals = new DatabaseSignals(backlog, report);
        List<HealthSignal> list = new ArrayList<>();
        Duration lag = signals.lag();
        list.add(new HealthSignal(
                "oldest eligible event waiting",
                seconds(lag),
                "≤ " + Durations.format(thresholds.maxLag()) + " (" + ConfigKey.HEALTH_MAX_LAG.property() + ")",
                thresholds.maxLag().isZero() || lag.compareTo(thresholds.maxLag()) <= 0));
        Optional<OpenTransaction> oldest = report.oldestTransaction();
        list.add(new HealthSignal(
                "oldest open transaction",
                oldest.map(t -> seconds(t.age()) + " (pid " + t.pid() + ")").orElse("none"),
                "≤ " + Durations.format(thresholds.maxXminAge()) + " (" + ConfigKey.HEALTH_MAX_XMIN_AGE.property()
                        + ")",
                thresholds.maxXminAge().isZero()
                        || oldest.isEmpty()
                        || oldest.get().age().compareTo(thresholds.maxXminAge()) <= 0));
        list.add(new HealthSignal(
                "xmin horizon age",
                report.xminHorizon()
                        .map(DatabaseHealthReport.HorizonHolder::describe)
                        .orElse("not held"),
                "held by no transaction older than the line above",
                true));
        // in the append-only layout each of its tables has its own rows: a vacuum that cannot keep up shows
        // on the table it leaves behind
        boolean oneTable = report.outboxTables().size() == 1;
        for (TableStatistics table : report.outboxTables()) {
            String of = oneTable ? "" : " (" + table.table() + ")";
            list.add(new HealthSignal(
                    "dead tuples" + of,
                    table.deadTuples() + " (live " + table.liveTuples() + ")",
                    "alert when > " + DEAD_TUPLES_FLOOR + " and > 20 % of live",
                    !table.deadTuplesOver(DEAD_TUPLES_FLOOR, DEAD_TUPLES_SHARE)));
            Optional<Instant> vacuum = table.lastVacuumOfAnyKind();
            boolean stale =
                    (vacuum.isEmpty() || Duration.between(vacuum.get(), now).compareTo(Duration.ofDays(1)) > 0)
                            && table.deadTuples() > 10_000;
            list.add(new HealthSignal(
                    "last vacuum" + of,
                    vacuum.map(at -> at + " (" + seconds(Duration.between(at, now)) + " ago)")
                            .orElse("never"),
                    "within a day while > 10000 dead tuples",
                    !stale));
        }
        report.outbox()
                .filter(table -> !oneTable)
                .ifPresent(table -> list.add(
                        new HealthSignal("size of the outbox's tables", table.totalBytes() + " bytes", "–", true)));
        return list;
    }

    private static Map<String, String> facts(RelayAppConfig settings, Instant started) {
        Map<String, String> facts = new LinkedHashMap<>();
        facts.put("process", ManagementFactory.getRuntimeMXBean().getName());
        facts.put("running since", SINCE.format(started));
        facts.put("table", settings.database().map(d -> d.table()).orElse("-"));
        long alive = Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> thread.getName().startsWith("outbox-relay-"))
                .count();
        facts.put("relay threads", settings.worker().relayThreads() + " configured, " + alive + " running");
        facts.put("ordering", settings.worker().relay().ordering().describe());
        return facts;
    }

    private static String seconds(Duration duration) {
        return String.format(java.util.Locale.ROOT, "%.1fs", Math.max(0, duration.toMillis()) / 1000.0);
    }

    /** Stops sampling. */
    @Override
    public void close() {
        sampler.close();
    }
}
