package dev.outboxjava.examples.demo;

import com.google.inject.Guice;
import dev.outboxjava.core.EventStatus;
import dev.outboxjava.examples.orders.OrderService;
import dev.outboxjava.examples.orders.OrderTables;
import dev.outboxjava.examples.orders.OrdersModule;
import dev.outboxjava.examples.orders.OrdersModule.Persistence;
import dev.outboxjava.examples.shipping.EventStream;
import dev.outboxjava.examples.shipping.KafkaEventStream;
import dev.outboxjava.examples.shipping.RabbitMqEventStream;
import dev.outboxjava.examples.shipping.ShipmentHandler;
import dev.outboxjava.examples.shipping.ShippingConsumer;
import dev.outboxjava.examples.shipping.ShippingTables;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.postgres.PostgresSchema;
import dev.outboxjava.relayapp.BrokerKind;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.sql.DataSource;

/**
 * The demo's story, start to end: set up the tables, start the shipping consumer and relay #1,
 * place orders from several threads while printing progress, SIGKILL relay #1 once a share of the
 * orders is published, start relay #2, wait until every committed order's event was consumed, and
 * check the result against the database.
 */
public final class DemoRun {

    private static final long TICK_MILLIS = 200;
    private static final long PRINT_EVERY_MILLIS = 1000;
    /** After the outbox drained, how long to keep reading for late duplicates. */
    private static final long SETTLE_MILLIS = 1500;
    /** How long the kill waits for a batch to be in flight before it strikes anyway. */
    private static final long KILL_WINDOW_NANOS = 5_000_000_000L;

    private final DemoConfig options;
    private final PrintStream out;

    public DemoRun(DemoConfig options, PrintStream out) {
        this.options = options;
        this.out = out;
    }

    /** Runs the demo and returns what it saw; throws when a service cannot be started or reached. */
    public DemoSummary run() {
        long started = System.nanoTime();
        try (DemoEnvironment environment = DemoEnvironment.start(options, out)) {
            return run(environment, started);
        }
    }

    private DemoSummary run(DemoEnvironment environment, long started) {
        DataSource dataSource = environment.dataSource();
        // The same qualified table as the relays' OUTBOX_TABLE.
        PostgresOutboxConfig outboxConfig = PostgresOutboxConfig.builder()
                .tableName(environment.schema() + ".outbox_events")
                .build();
        createTables(dataSource, outboxConfig);
        Clock clock = Clock.systemUTC();
        DemoStats stats = new DemoStats(clock);
        Path logs = logDirectory();

        try (DemoRelays launcher = new DemoRelays(DemoRelays.settings(environment), logs)) {
            // First: a JVM takes seconds to start, and the rest of the set-up can happen meanwhile.
            DemoRelays.Relay relay = launcher.start(1);
            out.printf("relay #1 started as process %d (log %s)%n", relay.pid(), relay.log());
            return run(environment, outboxConfig, stats, clock, launcher, relay, logs, started);
        }
    }

    private DemoSummary run(
            DemoEnvironment environment,
            PostgresOutboxConfig outboxConfig,
            DemoStats stats,
            Clock clock,
            DemoRelays launcher,
            DemoRelays.Relay relay,
            Path logs,
            long started) {
        DataSource dataSource = environment.dataSource();
        Ending ending;
        try (PostgresOutboxStore store = PostgresOutboxStore.create(dataSource, outboxConfig);
                ShippingConsumer consumer = new ShippingConsumer(
                        stream(environment), new ShipmentHandler(dataSource, clock), stats::onApplied)) {
            consumer.start();
            List<OrderService> services = List.of(
                    Guice.createInjector(new OrdersModule(
                                    dataSource, outboxConfig, environment.destination(), Persistence.JDBC))
                            .getInstance(OrderService.class),
                    Guice.createInjector(new OrdersModule(
                                    dataSource, outboxConfig, environment.destination(), Persistence.JOOQ))
                            .getInstance(OrderService.class));
            OrderLoad load = new OrderLoad(services, options.orders(), options.threads(), stats);
            out.printf(
                    "placing %,d orders from %d threads (JDBC and jOOQ services alternate; every %dth order is "
                            + "sold out and rolls back)%n",
                    options.orders(), options.threads(), OrderLoad.REJECT_EVERY);
            load.start();
            try {
                ending = watch(launcher, relay, load, store, stats, started, logs);
            } finally {
                load.stop(); // on every path: no order thread may outlive the data source
            }
            printProgress(started, stats, store.countByStatus(), ending.relay());
            int exit = ending.relay().stop();
            out.printf(
                    "relay #%d stopped with SIGTERM after a graceful drain (exit code %d)%n",
                    ending.relay().number(), exit);
        }
        // The consumer is closed now: the counts below no longer move.
        return summarize(dataSource, stats, ending.kills());
    }

    /** What the watch loop ended with: the relay still running and how many were killed. */
    private record Ending(DemoRelays.Relay relay, int kills) {}

    /**
     * Prints progress until every committed order's event was consumed (or the timeout passed),
     * killing relay #1 once {@code killAt} of the orders are published.
     */
    private Ending watch(
            DemoRelays launcher,
            DemoRelays.Relay first,
            OrderLoad load,
            PostgresOutboxStore store,
            DemoStats stats,
            long started,
            Path logs) {
        DemoRelays.Relay relay = first;
        int kills = 0;
        boolean firstReported = false;
        long lastProgress = System.nanoTime();
        long lastSignature = -1;
        long lastPrint = 0;
        long drainedAt = 0;
        while (true) {
            sleep(TICK_MILLIS);
            Map<EventStatus, Long> counts = store.countByStatus();
            long sent = counts.get(EventStatus.SENT);
            long open = counts.get(EventStatus.PENDING) + counts.get(EventStatus.IN_FLIGHT);
            if (!relay.isAlive()) {
                throw new IllegalStateException("relay #" + relay.number() + " exited on its own; its last output:"
                        + System.lineSeparator() + relay.logTail(20));
            }
            if (!firstReported && stats.firstConsumedAtNanos() != 0) {
                firstReported = true;
                out.printf("first event consumed %.1f s after start%n", (stats.firstConsumedAtNanos() - started) / 1e9);
            }
            if (kills == 0 && sent >= options.killAt() * options.orders()) {
                awaitBatchInFlight(store);
                relay.kill();
                kills++;
                Map<EventStatus, Long> atKill = store.countByStatus();
                out.printf(
                        "%n*** SIGKILL relay #%d (pid %d) mid-drain: %,d events in flight, %,d pending -- "
                                + "their lease expires within %d s%n",
                        relay.number(),
                        relay.pid(),
                        atKill.get(EventStatus.IN_FLIGHT),
                        atKill.get(EventStatus.PENDING),
                        DemoRelays.LEASE_TIMEOUT_SECONDS);
                relay = launcher.start(kills + 1);
                out.printf(
                        "*** relay #%d started as process %d (log %s)%n%n", relay.number(), relay.pid(), relay.log());
            }
            if (System.nanoTime() / 1_000_000 - lastPrint >= PRINT_EVERY_MILLIS) {
                lastPrint = System.nanoTime() / 1_000_000;
                printProgress(started, stats, counts, relay);
            }
            boolean complete = load.isDone() && open == 0 && stats.consumed() >= stats.written();
            if (complete && kills > 0) {
                if (drainedAt == 0) {
                    drainedAt = System.nanoTime();
                } else if (System.nanoTime() - drainedAt >= SETTLE_MILLIS * 1_000_000) {
                    break;
                }
            } else {
                drainedAt = 0;
            }
            // A busy machine is slow, not stuck: give up only when nothing moves for the timeout.
            long signature = stats.written()
                    + stats.rejected()
                    + sent
                    + counts.get(EventStatus.IN_FLIGHT)
                    + stats.consumed()
                    + stats.duplicates();
            if (signature != lastSignature) {
                lastSignature = signature;
                lastProgress = System.nanoTime();
            } else if (System.nanoTime() - lastProgress > options.timeout().toNanos()) {
                out.printf(
                        "%n!!! gave up: no progress for %d s; events not consumed by now count as lost. "
                                + "Relay logs: %s%n",
                        options.timeout().toSeconds(), logs);
                break;
            }
        }
        return new Ending(relay, kills);
    }

    /** Waits (briefly) until the relay holds a leased batch, so the kill lands mid-drain, not between polls. */
    private static void awaitBatchInFlight(PostgresOutboxStore store) {
        long giveUp = System.nanoTime() + KILL_WINDOW_NANOS;
        while (store.countByStatus().get(EventStatus.IN_FLIGHT) == 0 && System.nanoTime() < giveUp) {
            sleep(5);
        }
    }

    private void printProgress(long started, DemoStats stats, Map<EventStatus, Long> counts, DemoRelays.Relay relay) {
        out.printf(
                Locale.ROOT,
                "[%6s] written %,7d | published %,7d | in flight %,5d | consumed %,7d | "
                        + "duplicates %,4d | latency p50 %s p99 %s | relay #%d%s%n",
                Progress.seconds(started),
                stats.written(),
                counts.get(EventStatus.SENT),
                counts.get(EventStatus.IN_FLIGHT),
                stats.consumed(),
                stats.duplicates(),
                Progress.millis(stats.latencyMillis(50)),
                Progress.millis(stats.latencyMillis(99)),
                relay.number(),
                relay.isAlive() ? "" : " (down)");
    }

    private DemoSummary summarize(DataSource dataSource, DemoStats stats, int kills) {
        Map<String, Long> facts = new LinkedHashMap<>();
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement()) {
            facts.put("orders", count(statement, "SELECT count(*) FROM orders"));
            facts.put("shipments", count(statement, "SELECT count(*) FROM shipments"));
            // A committed order whose event never reached the consumer:
            facts.put(
                    "lost",
                    count(
                            statement,
                            "SELECT count(*) FROM orders o "
                                    + "WHERE NOT EXISTS (SELECT 1 FROM shipments s WHERE s.order_id = o.order_id)"));
            // A shipment for an order that was rolled back (its event must not exist):
            facts.put(
                    "phantoms",
                    count(
                            statement,
                            "SELECT count(*) FROM shipments s "
                                    + "WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE o.order_id = s.order_id)"));
        } catch (SQLException e) {
            throw new IllegalStateException("could not check the result in the database: " + e.getMessage(), e);
        }
        return new DemoSummary(
                facts.get("orders"),
                stats.rejected(),
                facts.get("shipments"),
                stats.duplicates(),
                facts.get("lost"),
                facts.get("phantoms"),
                kills,
                stats.latencyMillis(50),
                stats.latencyMillis(99));
    }

    private static long count(Statement statement, String sql) throws SQLException {
        try (ResultSet rows = statement.executeQuery(sql)) {
            rows.next();
            return rows.getLong(1);
        }
    }

    private static void createTables(DataSource dataSource, PostgresOutboxConfig outboxConfig) {
        PostgresSchema.apply(dataSource, outboxConfig);
        try (Connection connection = dataSource.getConnection()) {
            OrderTables.create(connection);
            ShippingTables.create(connection);
            Map<String, Integer> stock = new LinkedHashMap<>();
            for (int i = 0; i < OrderLoad.SKUS; i++) {
                stock.put("sku-" + i, Integer.MAX_VALUE / 2);
            }
            stock.put(OrderLoad.SOLD_OUT_SKU, 0);
            OrderTables.stock(connection, stock);
        } catch (SQLException e) {
            throw new IllegalStateException("could not create the demo tables: " + e.getMessage(), e);
        }
    }

    private static EventStream stream(DemoEnvironment environment) {
        if (environment.broker() == BrokerKind.KAFKA) {
            return new KafkaEventStream(
                    environment.kafkaBootstrapServers(), environment.destination(), "shipping-" + environment.suffix());
        }
        return new RabbitMqEventStream(
                environment.rabbitMqFactory(), environment.queue(), "outbox-demo-shipping-" + environment.suffix());
    }

    private static Path logDirectory() {
        try {
            return Files.createTempDirectory("outbox-demo-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a directory for the relay logs", e);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("demo interrupted", e);
        }
    }
}
