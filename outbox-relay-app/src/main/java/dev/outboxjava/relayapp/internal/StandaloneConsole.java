package dev.outboxjava.relayapp.internal;

import dev.outboxjava.console.ActivitySampler;
import dev.outboxjava.console.ConsoleOutbox;
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
import dev.outboxjava.relayapp.OutboxesConfig;
import dev.outboxjava.relayapp.RelayAppConfig;
import dev.outboxjava.worker.Durations;
import dev.outboxjava.worker.HealthConfig;
import dev.outboxjava.worker.MultiOutboxWorker;
import dev.outboxjava.worker.OutboxId;
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
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The web console of the standalone process: the store's operator API, the activity sampled from the
 * process's own published counter, the database health signals judged by the readiness thresholds,
 * and this process's facts; with many outboxes, each outbox the worker relays with its own table's
 * signals, the database's shown once.
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

    /** The overview's charts, of the one table; none with many outboxes (the console draws none). */
    private final Optional<ActivitySampler> sampler;

    private final OutboxConsole console;

    private StandaloneConsole(Optional<ActivitySampler> sampler, OutboxConsole console) {
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
                .processFacts(() -> facts(settings, started, Optional.empty()))
                .build();
        return Optional.of(new StandaloneConsole(Optional.of(sampler), console));
    }

    /**
     * The console of the outboxes a worker of many relays when {@code outbox.console.enabled}, empty
     * otherwise: it lists the outboxes the worker relays at each view (none before its start, a schema
     * discovered later as soon as the worker relays it), each labelled {@code schema.table}, with the
     * signals of its own table on its overview and the database's on the list.
     */
    public static Optional<StandaloneConsole> createIfEnabled(
            RelayAppConfig settings, MultiOutboxWorker worker, MeterRegistry registry) {
        ConsoleConfig config = settings.console();
        if (!config.enabled()) {
            return Optional.empty();
        }
        Clock clock = Clock.systemUTC();
        HealthConfig thresholds = settings.health();
        Instant started = clock.instant();
        // a probe names its tables, so each outbox has its own; made once per outbox, not per view
        Map<OutboxId, PostgresHealthProbe> probes = new ConcurrentHashMap<>();
        Function<OutboxId, Optional<Map.Entry<PostgresOutboxStore, PostgresHealthProbe>>> probed =
                id -> worker.store(id)
                        .map(store -> Map.entry(
                                store,
                                probes.computeIfAbsent(
                                        id,
                                        unused -> PostgresHealthProbe.create(
                                                store.dataSource(),
                                                store.config().tableName(),
                                                store.config().layout(),
                                                Optional.empty()))));
        Supplier<List<ConsoleOutbox>> outboxes = () -> {
            List<OutboxId> ids = worker.outboxes();
            // an outbox no longer relayed keeps no probe
            probes.keySet().retainAll(ids);
            List<ConsoleOutbox> list = new ArrayList<>();
            for (OutboxId id : ids) {
                probed.apply(id)
                        .ifPresent(pair -> list.add(ConsoleOutbox.of(id.qualifiedTable(), pair.getKey())
                                .withHealthSignals(() -> tableSignals(
                                        pair.getKey(),
                                        pair.getValue().read(clock.instant()),
                                        thresholds,
                                        clock.instant()))));
            }
            return list;
        };
        // the database's signals are the same whichever outbox's probe reads them: the first one's
        Supplier<List<HealthSignal>> databaseSignals = () -> worker.outboxes().stream()
                .findFirst()
                .flatMap(probed)
                .map(pair -> databaseSignals(pair.getValue().read(clock.instant()), thresholds))
                .orElse(List.of());
        OutboxConsole console = OutboxConsole.forOutboxes(outboxes)
                .adminCredential(config.adminToken().orElse(null))
                .allowRemoteClients(config.allowRemote())
                .clock(clock)
                .healthSignals(databaseSignals)
                .processFacts(() -> facts(settings, started, Optional.of(worker)))
                .build();
        return Optional.of(new StandaloneConsole(Optional.empty(), console));
    }

    /** The console, to mount on the process's HTTP server. */
    public OutboxConsole console() {
        return console;
    }

    /** Starts sampling the activity the overview charts, and says where the console is. */
    public void start(HttpConfig http, int port) {
        sampler.ifPresent(ActivitySampler::start);
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

    /** The signals of the one table's console: its lag, the database's, then its tables'. */
    static List<HealthSignal> signals(
            PostgresOutboxStore store, PostgresHealthProbe probe, HealthConfig thresholds, Instant now) {
        DatabaseHealthReport report = probe.read(now);
        List<HealthSignal> table = tableSignals(store, report, thresholds, now);
        List<HealthSignal> list = new ArrayList<>(table.subList(0, 1));
        list.addAll(databaseSignals(report, thresholds));
        list.addAll(table.subList(1, table.size()));
        return list;
    }

    /** The signals of the database every outbox in it shares: its oldest transaction and what holds the horizon. */
    static List<HealthSignal> databaseSignals(DatabaseHealthReport report, HealthConfig thresholds) {
        List<HealthSignal> list = new ArrayList<>();
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
        return list;
    }

    /** The signals of one outbox's own tables: the lag of its oldest eligible event first, then its tables' vacuum. */
    static List<HealthSignal> tableSignals(
            PostgresOutboxStore store, DatabaseHealthReport report, HealthConfig thresholds, Instant now) {
        Backlog backlog = store.backlog(now);
        DatabaseSignals signals = new DatabaseSignals(backlog, report);
        List<HealthSignal> list = new ArrayList<>();
        Duration lag = signals.lag();
        list.add(new HealthSignal(
                "oldest eligible event waiting",
                seconds(lag),
                "≤ " + Durations.format(thresholds.maxLag()) + " (" + ConfigKey.HEALTH_MAX_LAG.property() + ")",
                thresholds.maxLag().isZero() || lag.compareTo(thresholds.maxLag()) <= 0));
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

    private static Map<String, String> facts(
            RelayAppConfig settings, Instant started, Optional<MultiOutboxWorker> many) {
        Map<String, String> facts = new LinkedHashMap<>();
        facts.put("process", ManagementFactory.getRuntimeMXBean().getName());
        facts.put("running since", SINCE.format(started));
        if (many.isPresent()) {
            facts.put(
                    "outboxes",
                    many.get().outboxes().size() + " relayed now ("
                            + settings.outboxes().map(OutboxesConfig::describe).orElse("-") + ")");
        } else {
            facts.put("table", settings.database().map(d -> d.table()).orElse("-"));
        }
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
        sampler.ifPresent(ActivitySampler::close);
    }
}
