package dev.outboxjava.worker.internal.cli;

import com.google.inject.Guice;
import com.google.inject.Injector;
import com.google.inject.Stage;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.worker.BrokerConfig;
import dev.outboxjava.worker.DatabaseConfig;
import dev.outboxjava.worker.OutboxSettings;
import dev.outboxjava.worker.OutboxWorker;
import dev.outboxjava.worker.internal.HealthHttpServer;
import dev.outboxjava.worker.internal.Secrets;
import dev.outboxjava.worker.internal.StandaloneModules;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code run}: the worker process, until SIGTERM / SIGINT. */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = {"Runs the relay, sweeper and cleaner until SIGTERM or SIGINT, serving /metrics, /health and "
                + "/health/ready on outbox.http.port.",
                "Configured by OUTBOX_* environment variables and/or --config FILE (see 'keys').",
                "On SIGTERM it stops leasing, lets batches in flight finish within outbox.shutdown.timeout, "
                + "releases what is unfinished, and exits."})
public final class RunCommand implements Callable<Integer> {

    private static final Logger log = LoggerFactory.getLogger(RunCommand.class);

    @Mixin
    ConfigOptions config;

    @Option(names = "--ensure-schema", description = "Create the outbox table, indexes and trigger if missing.")
    boolean ensureSchema;

    @Override
    public Integer call() throws InterruptedException {
        OutboxSettings settings = config.load(OutboxSettings.Requirement.DATABASE, OutboxSettings.Requirement.BROKER);
        DatabaseConfig database = settings.requireDatabase();
        BrokerConfig broker = settings.requireBroker();
        DatabaseProbe.requireReachable(database);
        if (!ensureSchema) {
            DatabaseProbe.requireOutboxTable(database);
        }

        PrometheusMeterRegistry registry = StandaloneModules.prometheus();
        Injector injector = Guice.createInjector(Stage.PRODUCTION, StandaloneModules.forSettings(settings, registry));
        OutboxWorker worker = injector.getInstance(OutboxWorker.class);
        if (ensureSchema) {
            injector.getInstance(PostgresOutboxStore.class).ensureSchema();
            log.info("outbox table {} present (created if it was missing)", database.table());
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Optional<HealthHttpServer> http = Optional.empty();
        try {
            if (settings.http().enabled()) {
                http = Optional.of(HealthHttpServer.start(settings.http(), registry, worker));
            }
            Optional<HealthHttpServer> server = http;
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    worker.close();
                    server.ifPresent(HealthHttpServer::close);
                } finally {
                    stopped.countDown();
                }
            }, "outbox-shutdown"));
            log.info("relaying {} ({}) to {}", database.table(), Secrets.maskText(database.url()), broker.describe());
            worker.start();
        } catch (RuntimeException e) {
            worker.close();
            http.ifPresent(HealthHttpServer::close);
            throw e;
        }
        stopped.await();
        return ExitCodes.OK;
    }
}
