package dev.outboxjava.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.InvalidConfigurationException;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.OutboxStoreException;
import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.core.port.DeadLetterMark;
import dev.outboxjava.core.port.MarkResult;
import dev.outboxjava.core.port.RetryMark;
import dev.outboxjava.core.time.ManualClock;
import dev.outboxjava.testkit.postgres.PostgresExtension;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** What the PostgreSQL store does beyond the shared contract. */
class PostgresOutboxStoreIT {

    @RegisterExtension
    static final PostgresExtension postgres = new PostgresExtension();

    private static final AtomicInteger TABLES = new AtomicInteger();
    private final ManualClock clock = ManualClock.startingAtEpochOf2024();

    private PostgresOutboxStore newStore(PostgresOutboxConfig.Builder config) {
        PostgresOutboxStore store = PostgresOutboxStore.create(
                postgres.dataSource(),
                config.tableName(postgres.schema() + ".events_" + TABLES.incrementAndGet())
                        .build());
        store.ensureSchema();
        return store;
    }

    private List<OutboxEvent> append(PostgresOutboxStore store, int count) {
        List<OutboxEvent> events = TestEvents.events(clock, count);
        store.transactional().inTransaction(connection -> events);
        return events;
    }

    @Test
    @DisplayName("an invalid table name such as 'outbox; drop table orders' is refused before any SQL runs")
    void invalidTableName() {
        String orders = postgres.schema() + ".orders";
        postgres.fixture().execute("CREATE TABLE " + orders + " (id int)");
        CountingDataSource counting = new CountingDataSource(postgres.dataSource());

        assertThatThrownBy(() -> PostgresOutboxStore.create(
                        counting,
                        PostgresOutboxConfig.builder()
                                .layout(StoreLayout.IN_PLACE)
                                .tableName("outbox; drop table " + orders)
                                .build()))
                .isInstanceOfSatisfying(
                        InvalidConfigurationException.class,
                        e -> assertThat(e.setting()).isEqualTo("tableName"))
                .hasMessageContaining("not a plain PostgreSQL identifier");

        assertThat(counting.connections.get()).as("connections asked for").isZero();
        postgres.fixture().execute("SELECT count(*) FROM " + orders);
    }

    @Test
    @DisplayName("ensureSchema is idempotent and creates the partial indexes and, in TRIGGER_NOTIFY mode, the trigger")
    void ensureSchemaTwice() throws SQLException {
        PostgresOutboxStore store = newStore(
                PostgresOutboxConfig.builder().layout(StoreLayout.IN_PLACE).wakeUpMode(WakeUpMode.TRIGGER_NOTIFY));
        store.ensureSchema();
        store.ensureSchema();
        String table =
                store.config().tableName().substring(store.config().tableName().indexOf('.') + 1);
        assertThat(names("SELECT indexname FROM pg_indexes WHERE schemaname = '" + postgres.schema()
                        + "' AND tablename = '" + table + "'"))
                .contains(table + "_pending_idx", table + "_in_flight_idx", table + "_failed_idx", table + "_sent_idx");
        assertThat(names("SELECT tgname FROM pg_trigger WHERE tgrelid = '"
                        + store.config().tableName() + "'::regclass AND NOT tgisinternal"))
                .containsExactly(table + "_notify");
        assertThat(names("SELECT unnest(reloptions) FROM pg_class WHERE oid = '"
                        + store.config().tableName() + "'::regclass"))
                .contains("autovacuum_vacuum_scale_factor=0.01");
    }

    @Test
    @DisplayName("switching the wake-up mode away from TRIGGER_NOTIFY and ensuring the schema again drops the trigger")
    void dropTrigger() throws SQLException {
        PostgresOutboxStore store = newStore(
                PostgresOutboxConfig.builder().layout(StoreLayout.IN_PLACE).wakeUpMode(WakeUpMode.TRIGGER_NOTIFY));
        assertThat(names("SELECT tgname FROM pg_trigger WHERE tgrelid = '"
                        + store.config().tableName() + "'::regclass AND NOT tgisinternal"))
                .hasSize(1);
        PostgresSchema.apply(
                postgres.dataSource(),
                store.config().toBuilder().wakeUpMode(WakeUpMode.NONE).build());
        assertThat(names("SELECT tgname FROM pg_trigger WHERE tgrelid = '"
                        + store.config().tableName() + "'::regclass AND NOT tgisinternal"))
                .isEmpty();
    }

    @Test
    @DisplayName(
            "the CloudEvents subject and dataschema are stored and come back from find, the lease and the per-key lease; absent ones stay absent")
    void subjectAndDataSchemaRoundTrip() {
        for (PostgresOutboxConfig.Builder config : List.of(
                PostgresOutboxConfig.builder().layout(StoreLayout.IN_PLACE),
                PostgresOutboxConfig.builder()
                        .layout(StoreLayout.IN_PLACE)
                        .ordering(dev.outboxjava.core.Ordering.perKey(
                                dev.outboxjava.core.Ordering.AfterDeadLetter.HOLD_KEY)))) {
            PostgresOutboxStore store = newStore(config);
            OutboxEvent with = OutboxEvent.builder()
                    .clock(clock)
                    .type("order.placed")
                    .key("order-42")
                    .destination("orders")
                    .subject("order-42")
                    .dataSchema("https://example.com/schemas/order-placed-v1.json")
                    .payload(new byte[] {1})
                    .build();
            OutboxEvent without = TestEvents.event(clock, "order-43");
            store.transactional().inTransaction(connection -> List.of(with, without));

            OutboxEvent found = store.find(with.id()).orElseThrow();
            assertThat(found.subject()).contains("order-42");
            assertThat(found.dataSchema()).contains("https://example.com/schemas/order-placed-v1.json");
            assertThat(store.find(without.id()).orElseThrow().subject()).isEmpty();
            assertThat(store.find(without.id()).orElseThrow().dataSchema()).isEmpty();

            List<OutboxEvent> leased = store.lease(UUID.randomUUID(), 10, clock.instant());
            assertThat(leased)
                    .filteredOn(e -> e.id().equals(with.id()))
                    .singleElement()
                    .satisfies(e -> {
                        assertThat(e.subject()).contains("order-42");
                        assertThat(e.dataSchema()).contains("https://example.com/schemas/order-placed-v1.json");
                    });
            assertThat(leased)
                    .filteredOn(e -> e.id().equals(without.id()))
                    .singleElement()
                    .satisfies(e -> assertThat(e.subject()).isEmpty());
        }
    }

    @Test
    @DisplayName("a batch mark with a stale lease id changes no row and reports every event lease-lost")
    void staleLeaseBatch() {
        PostgresOutboxStore store = newStore(PostgresOutboxConfig.builder().layout(StoreLayout.IN_PLACE));
        List<OutboxEvent> events = append(store, 5);
        UUID leaseId = UUID.randomUUID();
        store.lease(leaseId, 10, clock.instant());
        Set<UUID> ids = events.stream().map(OutboxEvent::id).collect(Collectors.toSet());
        UUID stale = UUID.randomUUID();

        MarkResult retry = store.markRetry(
                stale,
                ids.stream()
                        .map(id -> new RetryMark(id, "x", clock.instant().plusSeconds(5)))
                        .toList(),
                clock.instant());
        MarkResult dead = store.markDeadLettered(
                stale, ids.stream().map(id -> new DeadLetterMark(id, "x")).toList(), clock.instant());

        assertThat(retry.leaseLost()).isEqualTo(ids);
        assertThat(dead.leaseLost()).isEqualTo(ids);
        for (UUID id : ids) {
            OutboxEvent read = store.find(id).orElseThrow();
            assertThat(read.status()).isEqualTo(EventStatus.IN_FLIGHT);
            assertThat(read.leaseId()).contains(leaseId);
            assertThat(read.attempts()).isZero();
            assertThat(read.lastError()).isEmpty();
        }
    }

    @Test
    @DisplayName("per-event retry times and errors of one batch land on their own rows")
    void retryPerEvent() {
        PostgresOutboxStore store = newStore(PostgresOutboxConfig.builder().layout(StoreLayout.IN_PLACE));
        List<OutboxEvent> events = append(store, 2);
        UUID leaseId = UUID.randomUUID();
        store.lease(leaseId, 10, clock.instant());

        store.markRetry(
                leaseId,
                List.of(
                        new RetryMark(
                                events.get(0).id(), "timeout", clock.instant().plusSeconds(1)),
                        new RetryMark(
                                events.get(1).id(),
                                "broker down",
                                clock.instant().plusSeconds(60))),
                clock.instant());

        assertThat(store.find(events.get(0).id()).orElseThrow().lastError()).contains("timeout");
        assertThat(store.find(events.get(0).id()).orElseThrow().nextAttemptAt())
                .isEqualTo(clock.instant().plusSeconds(1));
        assertThat(store.find(events.get(1).id()).orElseThrow().lastError()).contains("broker down");
        assertThat(store.find(events.get(1).id()).orElseThrow().nextAttemptAt())
                .isEqualTo(clock.instant().plusSeconds(60));
    }

    @Test
    @DisplayName("in delete-on-publish mode a published event's row is deleted; a stale lease still deletes nothing")
    void deleteOnPublish() {
        PostgresOutboxStore store = newStore(PostgresOutboxConfig.builder()
                .layout(StoreLayout.IN_PLACE)
                .completionMode(CompletionMode.DELETE_ON_PUBLISH));
        List<OutboxEvent> events = append(store, 2);
        UUID leaseId = UUID.randomUUID();
        store.lease(leaseId, 10, clock.instant());

        assertThat(store.markPublished(UUID.randomUUID(), List.of(events.get(0).id()), clock.instant())
                        .leaseLost())
                .containsExactly(events.get(0).id());
        MarkResult result = store.markPublished(leaseId, List.of(events.get(0).id()), clock.instant());

        assertThat(result.marked()).containsExactly(events.get(0).id());
        assertThat(store.find(events.get(0).id())).isEmpty();
        assertThat(store.find(events.get(1).id())).map(OutboxEvent::status).contains(EventStatus.IN_FLIGHT);
    }

    @Test
    @DisplayName("purge deletes more rows than one chunk")
    void purgeInChunks() {
        PostgresOutboxStore store = newStore(PostgresOutboxConfig.builder().layout(StoreLayout.IN_PLACE));
        postgres.fixture()
                .execute("INSERT INTO " + store.config().tableName() + " (id, type, source, destination, "
                        + "content_type, payload, status, max_attempts, next_attempt_at, created_at, sent_at) "
                        + "SELECT gen_random_uuid(), 't', '/s', 'd', 'application/json', '\\x00', 'sent', 1, "
                        + "'2024-01-01', '2024-01-01', '2024-01-01' FROM generate_series(1, 25000)");
        assertThat(store.purgeSent(clock.instant().plus(Duration.ofDays(1)), "ops", clock.instant()))
                .isEqualTo(25_000);
        assertThat(store.countByStatus()).containsEntry(EventStatus.SENT, 0L);
    }

    @Test
    @DisplayName("a missing table is reported unhealthy, and a query fails naming the table and the fix")
    void missingTable() {
        PostgresOutboxStore store = PostgresOutboxStore.create(
                postgres.dataSource(),
                PostgresOutboxConfig.builder()
                        .layout(StoreLayout.IN_PLACE)
                        .tableName(postgres.schema() + ".never_created")
                        .build());

        assertThat(store.checkHealth().healthy()).isFalse();
        assertThat(store.checkHealth().detail()).contains(postgres.schema() + ".never_created");
        assertThatThrownBy(() -> store.lease(UUID.randomUUID(), 10, clock.instant()))
                .isInstanceOf(OutboxStoreException.class)
                .hasMessageContaining("lease up to 10 events")
                .hasMessageContaining(postgres.schema() + ".never_created")
                .hasMessageContaining("ensureSchema");
    }

    @Test
    @DisplayName("a store created from a JDBC URL opens its own pool and closes it")
    void ownPool() {
        PostgresOutboxConfig config = PostgresOutboxConfig.builder()
                .layout(StoreLayout.IN_PLACE)
                .tableName(postgres.schema() + ".events_" + TABLES.incrementAndGet())
                .maximumPoolSize(2)
                .build();
        PostgresOutboxStore store = PostgresOutboxStore.create(
                postgres.fixture().jdbcUrl(),
                postgres.fixture().user(),
                postgres.fixture().password(),
                config);
        try (store) {
            store.ensureSchema();
            append(store, 1);
            assertThat(store.countByStatus()).containsEntry(EventStatus.PENDING, 1L);
        }
        assertThatThrownBy(store::countByStatus).isInstanceOf(OutboxStoreException.class);
    }

    @Test
    @DisplayName("a JDBC URL of another database is refused naming the setting")
    void wrongUrl() {
        assertThatThrownBy(() -> PostgresOutboxStore.create(
                        "jdbc:mysql://localhost/x",
                        "u",
                        "p",
                        PostgresOutboxConfig.builder()
                                .layout(StoreLayout.IN_PLACE)
                                .build()))
                .isInstanceOfSatisfying(
                        InvalidConfigurationException.class,
                        e -> assertThat(e.setting()).isEqualTo("jdbcUrl"));
    }

    private static List<String> names(String sql) throws SQLException {
        try (Connection connection = postgres.dataSource().getConnection();
                ResultSet rs = connection.createStatement().executeQuery(sql)) {
            List<String> names = new java.util.ArrayList<>();
            while (rs.next()) {
                names.add(rs.getString(1));
            }
            return names;
        }
    }

    /** Counts connections handed out, to prove no SQL ran. */
    private static final class CountingDataSource extends ForwardingDataSource {
        private final AtomicInteger connections = new AtomicInteger();

        CountingDataSource(DataSource delegate) {
            super(delegate);
        }

        @Override
        public Connection getConnection() throws SQLException {
            connections.incrementAndGet();
            return super.getConnection();
        }
    }
}
