package dev.outboxjava.it.faults.suite;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.RetryPolicy;
import dev.outboxjava.core.relay.RelayConfig;
import dev.outboxjava.core.relay.SweeperConfig;
import dev.outboxjava.it.faults.ContinuousProducer;
import dev.outboxjava.it.faults.DeliveryChecker;
import dev.outboxjava.it.faults.ExposureLog;
import dev.outboxjava.it.faults.FaultCampaign;
import dev.outboxjava.it.faults.FaultInjector;
import dev.outboxjava.it.faults.FaultInjectors;
import dev.outboxjava.it.faults.FaultReport;
import dev.outboxjava.it.faults.InJvmRelay;
import dev.outboxjava.it.faults.InjectedFault;
import dev.outboxjava.it.faults.OutboxTableProbe;
import dev.outboxjava.it.faults.PostgresSessionTerminator;
import dev.outboxjava.it.faults.ProducerLedger;
import dev.outboxjava.it.faults.RelayFleet;
import dev.outboxjava.it.faults.RelayProcess;
import dev.outboxjava.postgres.OutboxWriter;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.postgres.StoreLayout;
import dev.outboxjava.testkit.contract.ReceivedMessage;
import dev.outboxjava.testkit.fixture.BrokerInbox;
import dev.outboxjava.testkit.postgres.PostgresFixture;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One fault run against one broker: two relay processes (two relay threads each) drain an outbox table
 * that producers fill continuously while every kind of fault is injected at random moments; then the relays
 * drain, the sweeper runs, and the checker compares the broker's deliveries with the producers' ledger and the
 * table. Each producer transaction touches one to three of 16 aggregates, locking each aggregate's row in key
 * order before appending its event ({@link ContinuousProducer}), and 10 % of them roll back on purpose; per-key
 * order is checked against each key's write order, the version read under its row lock. The relay processes
 * are the worker's own ({@code outbox-worker run}) for RabbitMQ, and processes assembled from the library's
 * pieces ({@link FaultRelayMain}) for Kafka; both with the run's ordering and layout.
 *
 * <p>The faults: SIGKILL of a random relay process (restarted a second later); a relay process that halts
 * between the broker's acknowledgement and its mark ({@link FaultRelayMain} with {@code HaltAfterAck}); the
 * broker's outage (Kafka stopped and restarted, or the relays' own RabbitMQ connections closed); the
 * relays' own database sessions terminated; an in-JVM relay whose publisher hangs past the lease timeout;
 * an in-JVM relay whose clock runs 10 s (more than the lease timeout) ahead.
 *
 * <p>Timings: lease timeout 6 s, publish timeout 3 s (the in-JVM relays use 5.5 s, so a hung publisher's
 * relay gives up after 5.5 s + the relay's 5 s grace = 10.5 s, well after the sweepers reclaimed its batch
 * at 6–7 s: its late mark is refused as lease-lost), sweeper every 1 s.
 */
final class FaultScenario {

    private static final Logger log = LoggerFactory.getLogger(FaultScenario.class);

    static final Duration LEASE_TIMEOUT = Duration.ofSeconds(6);
    static final Duration PUBLISH_TIMEOUT = Duration.ofSeconds(3);
    static final int FLEET_SIZE = 2;
    static final int BATCH_SIZE = 50;
    static final int KEYS = 16;
    static final int MAX_KEYS_PER_TRANSACTION = 3;

    private final PostgresFixture postgres;
    private final BrokerUnderTest broker;
    private final FaultRunConfig settings;
    private final Random random;
    private final AtomicInteger inJvmRelays = new AtomicInteger();

    FaultScenario(PostgresFixture postgres, BrokerUnderTest broker, FaultRunConfig settings, long seed) {
        this.postgres = postgres;
        this.broker = broker;
        this.settings = settings;
        this.random = new Random(seed);
    }

    FaultReport run() throws Exception {
        String schema = postgres.newSchema();
        String table = schema + ".outbox_events";
        PostgresOutboxConfig config = PostgresOutboxConfig.builder()
                .tableName(table)
                .ordering(settings.ordering())
                .layout(settings.layout())
                .build();
        try (HikariDataSource producers = pool("faults-producer", 6);
                PostgresOutboxStore schemaStore = PostgresOutboxStore.create(producers, config)) {
            schemaStore.ensureSchema();
            String aggregates = schema + ".aggregates";
            ContinuousProducer.createAggregatesTable(producers, aggregates);
            OutboxTableProbe probe =
                    new OutboxTableProbe(postgres.dataSource(), table, config.layout() == StoreLayout.APPEND_LOG);
            ProducerLedger ledger = new ProducerLedger();
            OutboxWriter writer = OutboxWriter.create(config);
            Path logs = Path.of(System.getProperty("outbox.faults.logs", "target/fault-logs"), broker.name());
            try (BrokerInbox inbox = broker.inbox();
                    ExposureLog exposure = new ExposureLog(probe, Duration.ofMillis(200));
                    RelayFleet fleet = new RelayFleet(
                            FLEET_SIZE, name -> relayProcess(broker.name() + "-" + name, table, schema, logs))) {
                // Producers write for as long as faults are injected (the in-JVM faults need events to lease),
                // and at least the run's number of events.
                ContinuousProducer producer = ContinuousProducer.start(
                        producers,
                        writer::append,
                        new ContinuousProducer.Settings(
                                broker.destination(),
                                Integer.MAX_VALUE,
                                4,
                                MAX_KEYS_PER_TRANSACTION,
                                0.1,
                                KEYS,
                                settings.eventsPerSecond(),
                                1_000,
                                aggregates,
                                random.nextLong()),
                        ledger);
                List<InjectedFault> faults;
                List<InJvmRelay> started = new ArrayList<>();
                try (producer) {
                    AtomicInteger halting = new AtomicInteger();
                    Supplier<RelayProcess> haltingRelays = () -> assembledRelayProcess(
                            broker.name() + "-halting-" + halting.incrementAndGet(), table, schema, logs, true);
                    faults = FaultCampaign.run(
                            injectors(config, fleet, exposure, schema, started, haltingRelays),
                            settings.minFaults(),
                            settings.maxFaults(),
                            settings.maxPause(),
                            random,
                            () -> ledger.committedCount() < settings.events());
                    while (ledger.committedCount() < settings.events()) {
                        Thread.sleep(200);
                    }
                }
                fleet.refill(FLEET_SIZE);
                awaitDrained(probe, fleet);
                // Past the lease timeout with sweepers running: anything still in flight is stuck.
                Thread.sleep(LEASE_TIMEOUT.plusSeconds(2).toMillis());
                awaitDrained(probe, fleet);
                List<ReceivedMessage> received = awaitReceived(inbox, ledger);
                Set<UUID> leaseLost = new HashSet<>(fleet.leaseLostIds());
                started.forEach(relay -> leaseLost.addAll(relay.leaseLostIds()));
                FaultReport report = DeliveryChecker.check(
                        ledger,
                        received,
                        probe.events(),
                        exposure.exposed(),
                        leaseLost,
                        faults,
                        settings.ordering().isPerKey());
                log.info(
                        "{} fault run ({}, {}, {}): {}; committed transactions by keys touched {}",
                        broker.name(),
                        settings.name(),
                        settings.layout(),
                        settings.ordering().isPerKey() ? "per_key" : "none",
                        report.details(),
                        ledger.committedTransactionsByKeys());
                if (producer.errors() > 0) {
                    log.warn(
                            "{} producer transaction(s) failed unexpectedly (recorded as not committed)",
                            producer.errors());
                }
                return report;
            } finally {
                postgres.dropSchema(schema);
            }
        }
    }

    private List<FaultInjector> injectors(
            PostgresOutboxConfig config,
            RelayFleet fleet,
            ExposureLog exposure,
            String schema,
            List<InJvmRelay> started,
            Supplier<RelayProcess> haltingRelays) {
        InJvmRelay.Options options = new InJvmRelay.Options(
                new RelayConfig(BATCH_SIZE, LEASE_TIMEOUT.minusMillis(500), settings.ordering()),
                RetryPolicy.builder()
                        .initialDelay(Duration.ofMillis(200))
                        .maxDelay(Duration.ofSeconds(2))
                        .build(),
                new SweeperConfig(LEASE_TIMEOUT, 1_000, 10),
                Duration.ofSeconds(1),
                Duration.ofMillis(200),
                1,
                Clock.systemUTC());
        Supplier<InJvmRelay> relays = () -> inJvmRelay(config, options, schema, started);
        Duration within = Duration.ofSeconds(60);
        return List.of(
                FaultInjectors.relayKill(fleet, FLEET_SIZE, exposure, random, Duration.ofSeconds(1)),
                FaultInjectors.processCrashAfterAck(haltingRelays, exposure, within),
                broker.outage(exposure),
                FaultInjectors.postgresSessionsTerminated(
                        new PostgresSessionTerminator(postgres.dataSource(), "%" + schema + "%"),
                        exposure,
                        Duration.ofSeconds(2)),
                FaultInjectors.publisherHang(relays, exposure, LEASE_TIMEOUT.plusSeconds(5), within),
                FaultInjectors.clockSkew(
                        clock -> inJvmRelay(config, options.withClock(clock), schema, started),
                        exposure,
                        LEASE_TIMEOUT.plusSeconds(4),
                        Duration.ofSeconds(4),
                        postgres.dataSource(),
                        LEASE_TIMEOUT,
                        PUBLISH_TIMEOUT));
    }

    private InJvmRelay inJvmRelay(
            PostgresOutboxConfig config, InJvmRelay.Options options, String schema, List<InJvmRelay> started) {
        String name = broker.name() + "-in-jvm-" + inJvmRelays.incrementAndGet();
        HikariDataSource pool = pool("faults-in-jvm " + schema, 2);
        PostgresOutboxStore store = PostgresOutboxStore.create(pool, config);
        InJvmRelay relay = InJvmRelay.start(name, store, broker.newPublisher(name), options, List.of(store, pool));
        synchronized (started) {
            started.add(relay);
        }
        return relay;
    }

    /**
     * The worker ({@code outbox-worker run}) for RabbitMQ; for Kafka, {@link FaultRelayMain}: the same store,
     * publishers, relay and sweeper, assembled from the library's pieces, in a process of its own. So a run of
     * both brokers exercises both.
     */
    private RelayProcess relayProcess(String name, String table, String schema, Path logs) {
        if (!"kafka".equals(broker.name())) {
            return RelayProcess.start(name, RelayProcess.workerCommand(), workerEnvironment(table, name), logs);
        }
        return assembledRelayProcess(name, table, schema, logs, false);
    }

    private RelayProcess assembledRelayProcess(
            String name, String table, String schema, Path logs, boolean haltAfterAck) {
        Map<String, String> env = new HashMap<>();
        env.put("FAULTS_HALT_AFTER_ACK", String.valueOf(haltAfterAck));
        broker.workerEnvironment(name).forEach((key, value) -> env.put(key.replaceFirst("^OUTBOX_", "FAULTS_"), value));
        env.put("FAULTS_RELAY_NAME", name);
        env.put("FAULTS_ORDERING", settings.ordering().isPerKey() ? "per_key" : "none");
        env.put("FAULTS_LAYOUT", settings.layout().name().toLowerCase(Locale.ROOT));
        env.put("FAULTS_DB_URL", postgres.jdbcUrl());
        env.put("FAULTS_DB_USER", postgres.user());
        env.put("FAULTS_DB_PASSWORD", postgres.password());
        env.put("FAULTS_APPLICATION_NAME", "faults-relay " + schema);
        env.put("FAULTS_TABLE", table);
        env.put("FAULTS_THREADS", "2");
        env.put("FAULTS_BATCH_SIZE", String.valueOf(BATCH_SIZE));
        env.put("FAULTS_PUBLISH_TIMEOUT_MS", String.valueOf(PUBLISH_TIMEOUT.toMillis()));
        env.put("FAULTS_LEASE_TIMEOUT_MS", String.valueOf(LEASE_TIMEOUT.toMillis()));
        return RelayProcess.start(name, RelayProcess.javaCommand(FaultRelayMain.class.getName()), env, logs);
    }

    private Map<String, String> workerEnvironment(String table, String relayName) {
        Map<String, String> env = new HashMap<>(broker.workerEnvironment(relayName));
        env.put("OUTBOX_DB_URL", postgres.jdbcUrl());
        env.put("OUTBOX_DB_USER", postgres.user());
        env.put("OUTBOX_DB_PASSWORD", postgres.password());
        env.put("OUTBOX_TABLE", table);
        env.put("OUTBOX_STORE_LAYOUT", settings.layout().name().toLowerCase(Locale.ROOT));
        env.put("OUTBOX_ORDERING", settings.ordering().isPerKey() ? "per_key" : "none");
        env.put("OUTBOX_AFTER_DEAD_LETTER", "hold_key");
        env.put("OUTBOX_RELAY_THREADS", "2");
        env.put("OUTBOX_RELAY_BATCH_SIZE", String.valueOf(BATCH_SIZE));
        env.put("OUTBOX_RELAY_PUBLISH_TIMEOUT", PUBLISH_TIMEOUT.toSeconds() + "s");
        env.put("OUTBOX_RELAY_POLL_INTERVAL", "250ms");
        env.put("OUTBOX_RETRY_INITIAL_DELAY", "200ms");
        env.put("OUTBOX_RETRY_MAX_DELAY", "2s");
        env.put("OUTBOX_SWEEPER_INTERVAL", "1s");
        env.put("OUTBOX_SWEEPER_LEASE_TIMEOUT", LEASE_TIMEOUT.toSeconds() + "s");
        env.put("OUTBOX_CLEANER_ENABLED", "false");
        env.put("OUTBOX_BACKOFF_MAX", "1s");
        env.put("OUTBOX_SHUTDOWN_TIMEOUT", "5s");
        env.put("OUTBOX_HTTP_PORT", "0");
        return env;
    }

    private HikariDataSource pool(String applicationName, int size) {
        HikariConfig hikari = new HikariConfig();
        hikari.setJdbcUrl(postgres.jdbcUrl());
        hikari.setUsername(postgres.user());
        hikari.setPassword(postgres.password());
        hikari.setMaximumPoolSize(size);
        hikari.setMinimumIdle(1);
        hikari.setConnectionTimeout(5_000);
        hikari.setInitializationFailTimeout(-1);
        hikari.addDataSourceProperty("ApplicationName", applicationName);
        return new HikariDataSource(hikari);
    }

    private void awaitDrained(OutboxTableProbe probe, RelayFleet fleet) throws InterruptedException {
        long deadline = System.nanoTime() + settings.drainTimeout().toNanos();
        Map<EventStatus, Long> counts = probe.countByStatus();
        while (counts.get(EventStatus.PENDING) + counts.get(EventStatus.IN_FLIGHT) > 0) {
            if (System.nanoTime() > deadline) {
                log.warn("not drained within {}: {}", settings.drainTimeout(), counts);
                return; // the checker reports what is left
            }
            fleet.refill(FLEET_SIZE);
            Thread.sleep(500);
            counts = probe.countByStatus();
        }
    }

    /** Waits until every committed event arrived, or nothing new arrived for 20 s. */
    private static List<ReceivedMessage> awaitReceived(BrokerInbox inbox, ProducerLedger ledger)
            throws InterruptedException {
        java.util.Set<String> expected = new java.util.HashSet<>();
        ledger.committedEvents().keySet().forEach(id -> expected.add(id.toString()));
        int seen = -1;
        long quietSince = System.nanoTime();
        while (true) {
            List<ReceivedMessage> received = inbox.get();
            java.util.Set<String> arrived = new java.util.HashSet<>();
            received.forEach(message -> arrived.add(message.id()));
            if (arrived.containsAll(expected)) {
                Thread.sleep(1_000); // late duplicates still in transit
                return inbox.get();
            }
            if (received.size() != seen) {
                seen = received.size();
                quietSince = System.nanoTime();
            } else if (System.nanoTime() - quietSince > Duration.ofSeconds(20).toNanos()) {
                return received;
            }
            Thread.sleep(500);
        }
    }
}
