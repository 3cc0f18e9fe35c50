package dev.outboxjava.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.OutboxStoreException;
import dev.outboxjava.core.time.ManualClock;
import dev.outboxjava.testkit.postgres.PostgresExtension;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The event rows commit and roll back with the caller's domain rows, through JDBC, jOOQ and the helper. */
class AppendAtomicityIT {

    @RegisterExtension
    static final PostgresExtension postgres = new PostgresExtension();

    private static PostgresOutboxStore store;
    private static OutboxWriter writer;
    private static String orders;
    private final ManualClock clock = ManualClock.startingAtEpochOf2024();

    @BeforeAll
    static void createTables() {
        store = PostgresOutboxStore.create(
                postgres.dataSource(),
                PostgresOutboxConfig.builder()
                        .layout(StoreLayout.IN_PLACE)
                        .tableName(postgres.schema() + ".outbox_events")
                        .build());
        store.ensureSchema();
        writer = store.writer();
        orders = postgres.schema() + ".orders";
        postgres.fixture().execute("CREATE TABLE " + orders + " (id uuid PRIMARY KEY, total int NOT NULL)");
        String schema = postgres.schema();
        postgres.fixture().execute("CREATE TABLE " + schema + ".insert_statements (n bigint NOT NULL)");
        postgres.fixture().execute("INSERT INTO " + schema + ".insert_statements VALUES (0)");
        postgres.fixture()
                .execute("CREATE FUNCTION " + schema + ".count_insert() RETURNS trigger LANGUAGE plpgsql "
                        + "AS $$ BEGIN UPDATE " + schema + ".insert_statements SET n = n + 1; RETURN NULL; END $$");
        postgres.fixture()
                .execute("CREATE TRIGGER count_insert AFTER INSERT ON "
                        + store.config().tableName() + " FOR EACH STATEMENT EXECUTE FUNCTION " + schema
                        + ".count_insert()");
    }

    @BeforeEach
    void empty() {
        postgres.fixture().execute("TRUNCATE " + orders + ", " + store.config().tableName());
    }

    @Test
    @DisplayName("TransactionalOutbox.afterCommit runs once per commit that appended, never after a rollback")
    void afterCommitRunsOnlyAfterACommitThatAppended() {
        java.util.concurrent.atomic.AtomicInteger woken = new java.util.concurrent.atomic.AtomicInteger();
        TransactionalOutbox outbox = store.transactional().afterCommit(woken::incrementAndGet);

        outbox.inTransaction(connection -> List.of(OutboxEvent.builder()
                .type("order.placed")
                .destination("orders")
                .payload(new byte[] {1})
                .clock(clock)
                .build()));
        outbox.inTransaction(connection -> List.of());
        assertThatThrownBy(() -> outbox.inTransaction(connection -> {
                    throw new IllegalStateException("declined");
                }))
                .hasMessage("declined");

        assertThat(woken).hasValue(1);
    }

    @Test
    @DisplayName("JDBC: domain row and events commit together")
    void jdbcCommit() throws SQLException {
        UUID order = UUID.randomUUID();
        List<OutboxEvent> events = TestEvents.events(clock, 3);
        try (Connection connection = postgres.dataSource().getConnection()) {
            connection.setAutoCommit(false);
            insertOrder(connection, order);
            List<OutboxEvent> appended = writer.append(connection, events);
            assertThat(appended)
                    .extracting(OutboxEvent::id)
                    .containsExactlyElementsOf(
                            events.stream().map(OutboxEvent::id).toList());
            connection.commit();
            connection.setAutoCommit(true);
        }
        assertCommitted(order, events);
    }

    @Test
    @DisplayName("JDBC: a rollback leaves neither the domain row nor the events")
    void jdbcRollback() throws SQLException {
        UUID order = UUID.randomUUID();
        try (Connection connection = postgres.dataSource().getConnection()) {
            connection.setAutoCommit(false);
            insertOrder(connection, order);
            writer.append(connection, TestEvents.events(clock, 3));
            connection.rollback();
            connection.setAutoCommit(true);
        }
        assertNothing(order);
    }

    @Test
    @DisplayName("jOOQ: domain row and events commit together in dsl.transaction")
    void jooqCommit() {
        UUID order = UUID.randomUUID();
        List<OutboxEvent> events = TestEvents.events(clock, 2);
        DSLContext dsl = DSL.using(postgres.dataSource(), SQLDialect.POSTGRES);
        dsl.transaction(tx -> {
            tx.dsl().execute("INSERT INTO " + orders + " (id, total) VALUES (?, 10)", order);
            writer.append(tx, events);
        });
        assertCommitted(order, events);
    }

    @Test
    @DisplayName("jOOQ: through the transaction's DSLContext, domain row and events commit together")
    void jooqDslContextCommit() {
        UUID order = UUID.randomUUID();
        List<OutboxEvent> events = TestEvents.events(clock, 2);
        DSLContext dsl = DSL.using(postgres.dataSource(), SQLDialect.POSTGRES);
        dsl.transaction(tx -> {
            tx.dsl().execute("INSERT INTO " + orders + " (id, total) VALUES (?, 10)", order);
            writer.append(tx.dsl(), events);
        });
        assertCommitted(order, events);
    }

    @Test
    @DisplayName("jOOQ: an exception in the transaction rolls back the domain row and the events")
    void jooqRollback() {
        UUID order = UUID.randomUUID();
        DSLContext dsl = DSL.using(postgres.dataSource(), SQLDialect.POSTGRES);
        assertThatThrownBy(() -> dsl.transaction(tx -> {
                    tx.dsl().execute("INSERT INTO " + orders + " (id, total) VALUES (?, 10)", order);
                    writer.append(tx.dsl(), TestEvents.events(clock, 2));
                    throw new IllegalStateException("payment declined");
                }))
                .hasMessageContaining("payment declined");
        assertNothing(order);
    }

    @Test
    @DisplayName("helper: the work's domain row and the events it returns commit together")
    void helperCommit() {
        UUID order = UUID.randomUUID();
        List<OutboxEvent> events = TestEvents.events(clock, 5);
        List<OutboxEvent> appended = store.transactional().inTransaction(connection -> {
            insertOrder(connection, order);
            return events;
        });
        assertThat(appended)
                .extracting(OutboxEvent::id)
                .containsExactlyElementsOf(events.stream().map(OutboxEvent::id).toList());
        assertCommitted(order, events);
    }

    @Test
    @DisplayName("helper: an exception in the work rolls back both and reaches the caller unchanged")
    void helperRollback() {
        UUID order = UUID.randomUUID();
        IllegalStateException declined = new IllegalStateException("payment declined");
        assertThatThrownBy(() -> store.transactional().inTransaction(connection -> {
                    insertOrder(connection, order);
                    throw declined;
                }))
                .isSameAs(declined);
        assertNothing(order);
    }

    @Test
    @DisplayName("helper: an SQL failure in the work rolls back both and is reported as a store failure")
    void helperSqlFailure() {
        UUID order = UUID.randomUUID();
        assertThatThrownBy(() -> store.transactional().inTransaction(connection -> {
                    insertOrder(connection, order);
                    insertOrder(connection, order);
                    return TestEvents.events(clock, 1);
                }))
                .isInstanceOf(OutboxStoreException.class)
                .hasMessageContaining("rolled back")
                .hasCauseInstanceOf(SQLException.class);
        assertNothing(order);
    }

    @Test
    @DisplayName("helper: a failing append (duplicate event id) rolls back the domain row too")
    void helperAppendFails() {
        OutboxEvent existing = TestEvents.event(clock, "a");
        store.transactional().inTransaction(connection -> List.of(existing));
        UUID order = UUID.randomUUID();
        assertThatThrownBy(() -> store.transactional().inTransaction(connection -> {
                    insertOrder(connection, order);
                    return List.of(existing);
                }))
                .isInstanceOf(OutboxStoreException.class)
                .hasMessageContaining(store.config().tableName())
                .hasMessageContaining("already in the outbox");
        assertThat(orderExists(order)).as("domain row rolled back").isFalse();
        assertThat(store.countByStatus())
                .as("only the first transaction's event")
                .containsEntry(EventStatus.PENDING, 1L);
    }

    @Test
    @DisplayName("many events in one call are one INSERT statement")
    void oneRoundTrip() {
        long before = insertsExecuted();
        store.transactional().inTransaction(connection -> TestEvents.events(clock, 200));
        assertThat(insertsExecuted() - before).isEqualTo(1);
        assertThat(store.countByStatus()).containsEntry(EventStatus.PENDING, 200L);
    }

    /** Statements that inserted into the outbox table, counted by a statement-level trigger of the test's own. */
    private long insertsExecuted() {
        try (Connection connection = postgres.dataSource().getConnection();
                PreparedStatement statement =
                        connection.prepareStatement("SELECT n FROM " + postgres.schema() + ".insert_statements")) {
            try (ResultSet rs = statement.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void insertOrder(Connection connection, UUID order) throws SQLException {
        try (PreparedStatement insert =
                connection.prepareStatement("INSERT INTO " + orders + " (id, total) VALUES (?, 10)")) {
            insert.setObject(1, order);
            insert.executeUpdate();
        }
    }

    private void assertCommitted(UUID order, List<OutboxEvent> events) {
        assertThat(orderExists(order)).as("domain row committed").isTrue();
        for (OutboxEvent event : events) {
            assertThat(store.find(event.id()))
                    .as("event %s committed", event.id())
                    .isPresent();
        }
        assertThat(events.stream()
                        .map(event -> store.find(event.id()).orElseThrow().sequence())
                        .toList())
                .as("sequences assigned in append order")
                .isSorted()
                .doesNotHaveDuplicates()
                .allMatch(seq -> seq > 0);
    }

    private void assertNothing(UUID order) {
        assertThat(orderExists(order)).as("domain row rolled back").isFalse();
        assertThat(store.countByStatus().values().stream()
                        .mapToLong(Long::longValue)
                        .sum())
                .as("events rolled back")
                .isZero();
    }

    private static boolean orderExists(UUID order) {
        try (Connection connection = postgres.dataSource().getConnection();
                PreparedStatement select = connection.prepareStatement("SELECT 1 FROM " + orders + " WHERE id = ?")) {
            select.setObject(1, order);
            try (ResultSet rs = select.executeQuery()) {
                return rs.next();
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
