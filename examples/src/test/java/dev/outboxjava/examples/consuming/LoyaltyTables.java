package dev.outboxjava.examples.consuming;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.RetryPolicy;
import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.core.relay.Relay;
import dev.outboxjava.core.relay.RelayConfig;
import dev.outboxjava.core.relay.RelayListener;
import dev.outboxjava.examples.orders.OrderEvents;
import dev.outboxjava.examples.orders.OrderPlaced;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.postgres.inbox.PostgresInbox;
import dev.outboxjava.postgres.inbox.PostgresInboxConfig;
import dev.outboxjava.testkit.postgres.PostgresExtension;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One test's tables in the shared PostgreSQL, under names of their own: the order service's outbox,
 * and the loyalty service's inbox and balances. Places orders through the outbox and relays them.
 */
final class LoyaltyTables {

    private static final AtomicInteger COUNT = new AtomicInteger();

    final PostgresOutboxStore store;
    final PostgresInbox inbox;
    final LoyaltyPoints points;
    private final PostgresExtension postgres;

    LoyaltyTables(PostgresExtension postgres) throws SQLException {
        this.postgres = postgres;
        String suffix = "_" + COUNT.incrementAndGet() + "_"
                + UUID.randomUUID().toString().substring(0, 8);
        store = PostgresOutboxStore.create(
                postgres.dataSource(),
                PostgresOutboxConfig.builder()
                        .tableName(postgres.schema() + ".outbox" + suffix)
                        .build());
        store.ensureSchema();
        inbox = PostgresInbox.create(
                postgres.dataSource(),
                PostgresInboxConfig.builder()
                        .tableName(postgres.schema() + ".inbox" + suffix)
                        .build());
        inbox.ensureSchema();
        points = new LoyaltyPoints(postgres.schema() + ".loyalty_points" + suffix);
        points.createTable(postgres.dataSource());
    }

    /** Places {@code count} orders of three customers, each order and its event in one transaction. */
    List<OutboxEvent> placeOrders(String destination, int count) {
        OrderEvents events = new OrderEvents(destination);
        List<OutboxEvent> appended = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            OrderPlaced order = new OrderPlaced(
                    UUID.randomUUID(),
                    "customer-" + (i % 3),
                    "sku-" + i,
                    1,
                    1_000 + 250L * i,
                    Instant.now().truncatedTo(ChronoUnit.MILLIS));
            appended.addAll(store.transactional().inTransaction(connection -> List.of(events.placed(order))));
        }
        return appended;
    }

    /** One relay pass: publishes every pending event and marks it sent. */
    void relay(Publisher publisher) {
        new Relay(
                        store,
                        publisher,
                        new RelayConfig(500, Duration.ofSeconds(30)),
                        RetryPolicy.ofDefaults(),
                        Clock.systemUTC(),
                        RelayListener.NONE)
                .runOnce();
    }

    /** How many of {@code events} the loyalty consumer's inbox has recorded as processed. */
    long processed(List<OutboxEvent> events, String consumerName) {
        return events.stream()
                .filter(event -> inbox.isProcessed(consumerName, event.id().toString()))
                .count();
    }

    /** Every order credited exactly once: each customer's points and order count are those of its orders. */
    void assertEachOrderCreditedOnce(List<OutboxEvent> events) throws SQLException {
        Map<String, long[]> expected = new TreeMap<>();
        for (OutboxEvent event : events) {
            OrderPlaced order = OrderEvents.readPlaced(event.payload());
            long[] balance = expected.computeIfAbsent(order.customerId(), customer -> new long[2]);
            balance[0] += LoyaltyPoints.pointsFor(order);
            balance[1]++;
        }
        for (Map.Entry<String, long[]> customer : expected.entrySet()) {
            assertThat(points.balance(postgres.dataSource(), customer.getKey()))
                    .as("points and orders credited to " + customer.getKey())
                    .containsExactly(customer.getValue());
        }
    }

    /**
     * Makes the first credit fail inside the database, after the inbox recorded the message in the
     * same transaction: a trigger on the balance table raises on the first call of a sequence, and
     * sequences do not roll back, so every later credit succeeds.
     */
    void failTheFirstCredit() {
        postgres.fixture().execute("CREATE SEQUENCE " + points.table() + "_attempts");
        postgres.fixture()
                .execute("CREATE FUNCTION " + points.table() + "_fail_once() RETURNS trigger "
                        + "LANGUAGE plpgsql AS $$ BEGIN IF nextval('" + points.table() + "_attempts') = 1 THEN "
                        + "RAISE EXCEPTION 'the credit failed'; END IF; RETURN NEW; END $$");
        postgres.fixture()
                .execute("CREATE TRIGGER fail_once BEFORE INSERT OR UPDATE ON " + points.table()
                        + " FOR EACH ROW EXECUTE FUNCTION " + points.table() + "_fail_once()");
    }

    void drop() {
        postgres.fixture()
                .execute("DROP TABLE IF EXISTS " + store.config().tableName() + ", "
                        + inbox.config().tableName() + ", " + points.table() + " CASCADE");
        postgres.fixture().execute("DROP FUNCTION IF EXISTS " + points.table() + "_fail_once()");
        postgres.fixture().execute("DROP SEQUENCE IF EXISTS " + points.table() + "_attempts");
    }
}
