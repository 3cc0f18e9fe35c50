package dev.outboxjava.relayapp.internal.cli;

import com.google.inject.Guice;
import com.google.inject.Injector;
import com.google.inject.Stage;
import com.zaxxer.hikari.HikariDataSource;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.postgres.StoreLayout;
import dev.outboxjava.relayapp.BrokerConfig;
import dev.outboxjava.relayapp.ConfigKey;
import dev.outboxjava.relayapp.DatabaseConfig;
import dev.outboxjava.relayapp.OutboxesConfig;
import dev.outboxjava.relayapp.RelayAppConfig;
import dev.outboxjava.relayapp.internal.DataSources;
import dev.outboxjava.relayapp.internal.HealthHttpServer;
import dev.outboxjava.relayapp.internal.Secrets;
import dev.outboxjava.relayapp.internal.StandaloneConsole;
import dev.outboxjava.relayapp.internal.StandaloneModules;
import dev.outboxjava.relayapp.internal.StandaloneOutboxes;
import dev.outboxjava.relayapp.internal.StandaloneWorker;
import dev.outboxjava.worker.Durations;
import dev.outboxjava.worker.InvalidSettingsException;
import dev.outboxjava.worker.MultiOutboxWorker;
import dev.outboxjava.worker.OutboxWorker;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code run}: the worker process, until SIGTERM / SIGINT. */
@Command(
        name = "run",
        mixinStandardHelpOptions = true,
        description = {
            "Runs the relay, sweeper and cleaner until SIGTERM or SIGINT, serving /metrics, /health and "
                    + "/health/ready on outbox.http.port, with the web console under /console when "
                    + "outbox.console.enabled.",
            "Configured by OUTBOX_* environment variables and/or --config FILE (see 'keys').",
            "With outbox.tables or outbox.discovery.schema.pattern one process relays many outbox tables, fairly.",
            "Started while PostgreSQL is down or starting up, it waits for it (live, not ready) instead of "
                    + "exiting; a login or database name the server refuses ends it with exit code 3.",
            "On SIGTERM it stops leasing, lets batches in flight finish within outbox.shutdown.timeout, "
                    + "releases what is unfinished, and exits."
        })
public final class RunCommand implements Callable<Integer> {

    private static final Logger log = LoggerFactory.getLogger(RunCommand.class);
    /** How often a start that waits for the database tries again: it starts within about a second of it answering. */
    private static final Duration DATABASE_PROBE_INTERVAL = Duration.ofMillis(500);

    @Mixin
    ConfigOptions config;

    @Option(
            names = "--ensure-schema",
            description = "Create the outbox table (each of outbox.tables), indexes and trigger if missing.")
    boolean ensureSchema;

    @Override
    public Integer call() throws InterruptedException {
        RelayAppConfig settings = config.load(RelayAppConfig.Requirement.DATABASE, RelayAppConfig.Requirement.BROKER);
        DatabaseConfig database = settings.requireDatabase();
        BrokerConfig broker = settings.requireBroker();

        Optional<OutboxesConfig> many = settings.outboxes();
        if (ensureSchema && many.map(OutboxesConfig::isDiscovered).orElse(false)) {
            throw new InvalidSettingsException(List.of(new InvalidSettingsException.Problem(
                    ConfigKey.DISCOVERY_SCHEMA_PATTERN.displayName(),
                    "run --ensure-schema creates the tables it is given, and a pattern gives none: create each "
                            + "schema's table with its migrations (the schema command prints them), or list the "
                            + "tables in " + ConfigKey.TABLES.property())));
        }

        // the outbox meters of one table get its tag; those of many outboxes carry their own tags
        PrometheusMeterRegistry registry =
                many.isPresent() ? StandaloneModules.prometheus() : StandaloneModules.prometheus(database.table());
        Optional<Injector> injector = many.isPresent()
                ? Optional.empty()
                : Optional.of(
                        Guice.createInjector(Stage.PRODUCTION, StandaloneModules.forSettings(settings, registry)));
        Optional<MultiOutboxWorker> manyWorker =
                injector.isPresent() ? Optional.empty() : Optional.of(StandaloneOutboxes.worker(settings, registry));
        StandaloneWorker worker = injector.map(i -> StandaloneWorker.of(i.getInstance(OutboxWorker.class)))
                .orElseGet(() -> StandaloneWorker.of(manyWorker.orElseThrow()));
        CountDownLatch stopping = new CountDownLatch(1);
        AtomicBoolean waitingForDatabase = new AtomicBoolean(true);
        CountDownLatch stopped = new CountDownLatch(1);
        Optional<HealthHttpServer> http = Optional.empty();
        AtomicReference<Optional<StandaloneConsole>> console = new AtomicReference<>(Optional.empty());
        try {
            if (settings.http().enabled()) {
                console.set(
                        injector.isPresent()
                                ? StandaloneConsole.createIfEnabled(
                                        settings, injector.get().getInstance(PostgresOutboxStore.class), registry)
                                : StandaloneConsole.createIfEnabled(settings, manyWorker.orElseThrow(), registry));
                http = Optional.of(HealthHttpServer.start(
                        settings.http(), registry, worker, console.get().map(StandaloneConsole::console)));
                // without the URL's parameters: they may hold a password, and the endpoint may be public
                http.get().starting("the database at " + database.url().replaceFirst("\\?.*", ""));
            }
            Optional<HealthHttpServer> server = http;
            Runtime.getRuntime()
                    .addShutdownHook(new Thread(
                            () -> {
                                stopping.countDown();
                                try {
                                    console.get().ifPresent(StandaloneConsole::close);
                                    worker.close();
                                    server.ifPresent(HealthHttpServer::close);
                                    if (waitingForDatabase.get()) {
                                        log.info(
                                                "stopped while waiting for the database at {}, which did not "
                                                        + "answer; nothing had started",
                                                Secrets.maskText(database.url()));
                                    }
                                } finally {
                                    stopped.countDown();
                                }
                            },
                            "outbox-shutdown"));
            if (!awaitDatabase(database, stopping)) {
                stopped.await(); // SIGTERM while waiting: nothing started, nothing to finish
                return ExitCodes.OK;
            }
            waitingForDatabase.set(false);
            if (many.isPresent()) {
                if (ensureSchema) {
                    try (HikariDataSource pool = DataSources.pool(database)) {
                        StandaloneOutboxes.ensureSchemas(settings, pool);
                    }
                    log.info(
                            "outbox tables {} present (created if missing)",
                            many.get().describe());
                }
                log.info(
                        "relaying {} ({}) to {}",
                        many.get().describe(),
                        Secrets.maskText(database.url()),
                        broker.describe());
            } else {
                if (ensureSchema) {
                    injector.orElseThrow()
                            .getInstance(PostgresOutboxStore.class)
                            .ensureSchema();
                    log.info("outbox table {} present (created if it was missing)", database.table());
                } else {
                    DatabaseProbe.requireOutboxTable(database);
                }
                log.info(
                        "relaying {} ({}) to {}",
                        database.table(),
                        Secrets.maskText(database.url()),
                        broker.describe());
            }
            if (settings.layout() == StoreLayout.APPEND_LOG
                    && !settings.worker().cleanerEnabled()) {
                // on this layout the cleaner's run also keeps the log's structure, not only its retention
                log.warn(
                        "outbox.cleaner.enabled=false (OUTBOX_CLEANER_ENABLED): on outbox.store.layout=append_log the"
                                + " cleaner also creates the log's partitions ahead and raises the floor the lease"
                                + " reads from; unless another worker on {} runs it, new events go to the overflow"
                                + " partition, which retention never drops",
                        many.map(OutboxesConfig::describe).orElse(database.table()));
            }
            worker.start();
            server.ifPresent(HealthHttpServer::started);
            server.ifPresent(running -> console.get().ifPresent(c -> c.start(settings.http(), running.port())));
        } catch (RuntimeException e) {
            if (stopping.getCount() == 0) {
                stopped.await(); // stopped while starting: the shutdown hook closed the worker under us
                return ExitCodes.OK;
            }
            console.get().ifPresent(StandaloneConsole::close);
            worker.close();
            http.ifPresent(HealthHttpServer::close);
            throw e;
        }
        stopped.await();
        return ExitCodes.OK;
    }

    /**
     * Waits, without exiting, until the database accepts a connection: a database restarting while
     * the process starts is routine, and a supervisor restarting a process that exits at once soon
     * gives up. Settings the database refuses (login, database name) end the start at once.
     *
     * @return false when a stop was requested first
     */
    private static boolean awaitDatabase(DatabaseConfig database, CountDownLatch stopping) throws InterruptedException {
        long started = System.nanoTime();
        boolean[] waited = {false};
        boolean reachable = DatabaseProbe.awaitReachable(database, DATABASE_PROBE_INTERVAL, stopping, e -> {
            waited[0] = true;
            log.warn(
                    "{}; waiting for it: trying again every {}, not ready (/health/ready answers 503) until it "
                            + "answers",
                    e.getMessage(),
                    Durations.format(DATABASE_PROBE_INTERVAL));
        });
        if (reachable && waited[0]) {
            log.info(
                    "database at {} reachable after {} ms of waiting; starting",
                    Secrets.maskText(database.url()),
                    (System.nanoTime() - started) / 1_000_000);
        }
        return reachable;
    }
}
