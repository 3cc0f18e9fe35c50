package dev.outboxjava.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.InvalidEventException;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.time.ManualClock;
import dev.outboxjava.testkit.postgres.PostgresExtension;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Hostile input is refused with an {@link InvalidEventException} naming the field before anything
 * reaches the database: the caller's transaction stays usable (its own rows commit) and no event is
 * stored. Events assembled without the builder ({@link OutboxEvent#restore()}) take the same rules at
 * append time, so the database never sees them.
 */
class HostileAppendIT {

    @RegisterExtension
    static final PostgresExtension postgres = new PostgresExtension();

    private static final ManualClock CLOCK = ManualClock.startingAtEpochOf2024();

    private static PostgresOutboxStore store;
    private static OutboxWriter writer;
    private static String orders;

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
        postgres.fixture().execute("CREATE TABLE " + orders + " (id uuid PRIMARY KEY)");
    }

    @BeforeEach
    void empty() {
        postgres.fixture().execute("TRUNCATE " + orders + ", " + store.config().tableName());
    }

    private static OutboxEvent.Restorer assembled() {
        return OutboxEvent.restore()
                .id(UUID.randomUUID())
                .type("order.placed")
                .source("/orders")
                .destination("orders")
                .payload("{}".getBytes(StandardCharsets.UTF_8))
                .nextAttemptAt(CLOCK.instant())
                .createdAt(CLOCK.instant());
    }

    private static OutboxEvent.Builder built() {
        return OutboxEvent.builder()
                .type("order.placed")
                .destination("orders")
                .payload(new byte[0])
                .clock(CLOCK);
    }

    private static Arguments hostile(String name, String field, Supplier<List<OutboxEvent>> events) {
        return Arguments.of(name, field, events);
    }

    static Stream<Arguments> hostileInputs() {
        return Stream.of(
                hostile(
                        "NUL in a header value (builder)",
                        "headers",
                        () -> List.of(built().header("tenant", "a\0b").build())),
                hostile(
                        "NUL in a header value (assembled)",
                        "headers",
                        () -> List.of(
                                assembled().headers(Map.of("tenant", "a\0b")).build())),
                hostile(
                        "NUL in the type (assembled)",
                        "type",
                        () -> List.of(assembled().type("order\0placed").build())),
                hostile(
                        "NUL in the key (assembled)",
                        "key",
                        () -> List.of(assembled().key(Optional.of("k\0")).build())),
                hostile(
                        "NUL in the content type (assembled)",
                        "contentType",
                        () -> List.of(assembled().contentType("text/plain\0").build())),
                hostile(
                        "lone surrogate in the type (assembled)",
                        "type",
                        () -> List.of(assembled().type("order\uD800").build())),
                hostile(
                        "lone surrogate in the destination (assembled)",
                        "destination",
                        () -> List.of(assembled().destination("orders\uDC00").build())),
                hostile(
                        "source not a URI (assembled)",
                        "source",
                        () -> List.of(assembled().source("not a uri").build())),
                hostile(
                        "cloudEvents_id header (assembled)",
                        "headers",
                        () -> List.of(assembled()
                                .headers(Map.of("cloudEvents_id", "spoof"))
                                .build())),
                hostile(
                        "availableAt Instant.MAX (builder)",
                        "availableAt",
                        () -> List.of(built().availableAt(Instant.MAX).build())),
                hostile(
                        "due at Instant.MAX (assembled)",
                        "availableAt",
                        () -> List.of(assembled().nextAttemptAt(Instant.MAX).build())),
                hostile("a null list", "events", () -> null),
                hostile("a null element after a valid event", "events", () -> Arrays.asList(built().build(), null)),
                hostile(
                        "a valid event, then a bad one",
                        "headers",
                        () -> List.of(
                                built().build(),
                                assembled().headers(Map.of("tenant", "\0")).build())));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("hostileInputs")
    @DisplayName("JDBC: refused naming the field; the transaction goes on and commits its own rows, no event stored")
    void refusedBeforeTheDatabase(String name, String field, Supplier<List<OutboxEvent>> events) throws SQLException {
        UUID before = UUID.randomUUID();
        UUID after = UUID.randomUUID();
        try (Connection connection = postgres.dataSource().getConnection()) {
            connection.setAutoCommit(false);
            insertOrder(connection, before);
            assertThatThrownBy(() -> writer.append(connection, events.get()))
                    .isInstanceOfSatisfying(
                            InvalidEventException.class,
                            e -> assertThat(e.field()).isEqualTo(field))
                    .hasMessageContaining("'" + field + "'");
            insertOrder(connection, after); // fails if the transaction was aborted
            connection.commit();
            connection.setAutoCommit(true);
        }
        assertThat(orderCount()).as("both domain rows committed").isEqualTo(2);
        assertThat(storedEvents()).as("no event stored").isZero();
    }

    @Test
    @DisplayName("jOOQ: a NUL in an assembled event is refused inside dsl.transaction, which then commits its own row")
    void jooqTransactionGoesOn() {
        UUID order = UUID.randomUUID();
        DSL.using(postgres.dataSource(), SQLDialect.POSTGRES).transaction(tx -> {
            assertThatThrownBy(() -> writer.append(
                            tx,
                            List.of(assembled().headers(Map.of("tenant", "\0")).build())))
                    .isInstanceOfSatisfying(
                            InvalidEventException.class,
                            e -> assertThat(e.field()).isEqualTo("headers"));
            tx.dsl().execute("INSERT INTO " + orders + " (id) VALUES (?)", order);
        });
        assertThat(orderCount()).isEqualTo(1);
        assertThat(storedEvents()).isZero();
    }

    @Test
    @DisplayName("helper: a work that returns a null element is refused naming 'events', and nothing commits")
    void helperNullElement() {
        assertThatThrownBy(() -> store.transactional().inTransaction(connection -> {
                    insertOrder(connection, UUID.randomUUID());
                    return Arrays.asList(built().build(), null);
                }))
                .isInstanceOfSatisfying(
                        InvalidEventException.class, e -> assertThat(e.field()).isEqualTo("events"));
        assertThat(orderCount()).isZero();
        assertThat(store.countByStatus().getOrDefault(EventStatus.PENDING, 0L)).isZero();
    }

    private static void insertOrder(Connection connection, UUID order) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO " + orders + " (id) VALUES (?)")) {
            insert.setObject(1, order);
            insert.executeUpdate();
        }
    }

    private static long orderCount() {
        return count("SELECT count(*) FROM " + orders);
    }

    private static long storedEvents() {
        return count("SELECT count(*) FROM " + store.config().tableName());
    }

    private static long count(String sql) {
        try (Connection connection = postgres.dataSource().getConnection();
                PreparedStatement statement = connection.prepareStatement(sql);
                ResultSet rs = statement.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
