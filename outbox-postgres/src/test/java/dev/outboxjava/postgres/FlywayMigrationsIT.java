package dev.outboxjava.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.RetryPolicy;
import dev.outboxjava.core.inbox.InboxResult;
import dev.outboxjava.core.relay.Relay;
import dev.outboxjava.core.relay.RelayConfig;
import dev.outboxjava.core.relay.RelayListener;
import dev.outboxjava.core.time.ManualClock;
import dev.outboxjava.postgres.inbox.PostgresInbox;
import dev.outboxjava.postgres.inbox.PostgresInboxConfig;
import dev.outboxjava.postgres.inbox.PostgresInboxSchema;
import dev.outboxjava.postgres.internal.MigrationFiles;
import dev.outboxjava.postgres.internal.inplace.PerKeyIndexes;
import dev.outboxjava.testkit.RecordingPublisher;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.output.MigrateResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The shipped migrations as a user runs them: with Flyway, on a database of their own (created on the
 * shared server for this test and dropped afterwards), beside an application whose own migrations
 * start at V1 too.
 */
@DisplayName("The shipped migrations under Flyway, beside an application's own")
class FlywayMigrationsIT {

    private static final String APPLICATION_LOCATION = "classpath:db/shop";

    private final ManualClock clock = ManualClock.startingAtEpochOf2024();
    private ScratchDatabase database;
    private DataSource dataSource;

    @BeforeEach
    void emptyDatabase() {
        database = new ScratchDatabase("outbox_flyway");
        dataSource = database.dataSource();
    }

    @AfterEach
    void dropDatabase() {
        database.close();
    }

    /** The application's own Flyway: its migrations, the default history table. */
    private Flyway application() {
        return Flyway.configure()
                .dataSource(dataSource)
                .locations(APPLICATION_LOCATION)
                .load();
    }

    /**
     * The application's own Flyway when the outbox's may have run first on a new database: the outbox
     * table makes the schema non-empty, so it starts below its V1 as the outbox's does.
     */
    private Flyway applicationAfterOutbox() {
        return Flyway.configure()
                .dataSource(dataSource)
                .locations(APPLICATION_LOCATION)
                .baselineOnMigrate(true)
                .baselineVersion("0")
                .load();
    }

    /** The outbox's Flyway, configured exactly as the documentation says. */
    private Flyway outbox(String table, boolean perKey) {
        // tag::flyway-outbox[]
        List<String> locations = new ArrayList<>(List.of(PostgresSchema.MIGRATIONS_LOCATION));
        if (perKey) {
            locations.add(PostgresSchema.PER_KEY_MIGRATIONS_LOCATION);
        }
        return Flyway.configure()
                .dataSource(dataSource)
                .locations(locations.toArray(String[]::new))
                .table(PostgresSchema.HISTORY_TABLE)
                .placeholders(Map.of(PostgresSchema.TABLE_PLACEHOLDER, table))
                .baselineOnMigrate(true)
                .baselineVersion("0")
                .load();
        // end::flyway-outbox[]
    }

    /** The append-only layout's Flyway, configured exactly as the documentation says. */
    private Flyway appendLog(String table) {
        // tag::flyway-append-log[]
        return Flyway.configure()
                .dataSource(dataSource)
                .locations(PostgresSchema.APPEND_LOG_MIGRATIONS_LOCATION)
                .table(PostgresSchema.APPEND_LOG_HISTORY_TABLE)
                .placeholders(Map.of(PostgresSchema.TABLE_PLACEHOLDER, table))
                .baselineOnMigrate(true)
                .baselineVersion("0")
                .load();
        // end::flyway-append-log[]
    }

    /** The operator API's Flyway (audit table, dead-letter indexes), configured exactly as the documentation says. */
    private Flyway operator(String table) {
        // tag::flyway-operator[]
        return Flyway.configure()
                .dataSource(dataSource)
                .locations(PostgresSchema.OPERATOR_MIGRATIONS_LOCATION)
                .table(PostgresSchema.OPERATOR_HISTORY_TABLE)
                .placeholders(Map.of(PostgresSchema.TABLE_PLACEHOLDER, table))
                .baselineOnMigrate(true)
                .baselineVersion("0")
                .load();
        // end::flyway-operator[]
    }

    /** The inbox's Flyway, configured exactly as the documentation says. */
    private Flyway inbox(String table) {
        return Flyway.configure()
                .dataSource(dataSource)
                .locations(PostgresInboxSchema.MIGRATIONS_LOCATION)
                .table(PostgresInboxSchema.HISTORY_TABLE)
                .placeholders(Map.of(PostgresInboxSchema.TABLE_PLACEHOLDER, table))
                .baselineOnMigrate(true)
                .baselineVersion("0")
                .load();
    }

    @ParameterizedTest(name = "application migrated {0}")
    @ValueSource(strings = {"first", "last"})
    @DisplayName("on an empty database, run twice in either order, every history is complete and the relay "
            + "publishes from the table they made")
    void migrateTwiceThenRelay(String applicationOrder) throws Exception {
        boolean applicationFirst = applicationOrder.equals("first");
        for (int round = 1; round <= 2; round++) {
            int expected = round == 1 ? 1 : 0;
            if (applicationFirst) {
                assertThat(application().migrate().migrationsExecuted)
                        .as("application, round " + round)
                        .isEqualTo(round == 1 ? 2 : 0);
            }
            MigrateResult outbox = outbox("outbox_events", true).migrate();
            assertThat(outbox.migrationsExecuted)
                    .as("outbox table and per-key indexes, round " + round)
                    .isEqualTo(expected * (MigrationFiles.OUTBOX.size() + MigrationFiles.OUTBOX_PER_KEY.size()));
            assertThat(inbox("outbox_inbox").migrate().migrationsExecuted)
                    .as("inbox, round " + round)
                    .isEqualTo(expected * MigrationFiles.INBOX.size());
            if (!applicationFirst) {
                assertThat(applicationAfterOutbox().migrate().migrationsExecuted)
                        .as("application, round " + round)
                        .isEqualTo(round == 1 ? 2 : 0);
            }
        }

        assertThat(versions(application())).endsWith("1", "2");
        assertThat(versions(outbox("outbox_events", true)))
                .contains("1")
                .endsWith("repeatable")
                .hasSize((applicationFirst ? 1 : 0)
                        + MigrationFiles.OUTBOX.size()
                        + MigrationFiles.OUTBOX_PER_KEY.size());
        assertThat(versions(inbox("outbox_inbox"))).contains("1");
        for (Flyway flyway : List.of(application(), outbox("outbox_events", true), inbox("outbox_inbox"))) {
            assertThat(flyway.validateWithResult().validationSuccessful).isTrue();
        }

        PostgresOutboxConfig config = PostgresOutboxConfig.builder()
                .layout(StoreLayout.IN_PLACE)
                .ordering(Ordering.perKey(Ordering.AfterDeadLetter.HOLD_KEY))
                .build();
        PostgresOutboxStore store = PostgresOutboxStore.create(dataSource, config);
        assertThat(store.checkHealth().healthy())
                .as(store.checkHealth().detail())
                .isTrue();
        try (Connection connection = dataSource.getConnection()) {
            assertThat(new PerKeyIndexes(config.table()).missing(connection)).isEmpty();
        }

        List<UUID> appended = placeOrders(store, 3);
        assertRelayedInOrder(store, appended);

        PostgresInbox consumer = PostgresInbox.create(dataSource, PostgresInboxConfig.ofDefaults(), clock);
        String messageId = appended.get(0).toString();
        assertThat(consumer.process("shipping", messageId, connection -> {})).isEqualTo(InboxResult.PROCESSED);
        assertThat(consumer.process("shipping", messageId, connection -> {})).isEqualTo(InboxResult.DUPLICATE);
    }

    @Test
    @DisplayName("per-key ordering turned on later: adding the per-key location applies its indexes and nothing else")
    void perKeyAddedLater() throws Exception {
        application().migrate();
        assertThat(outbox("events", false).migrate().migrationsExecuted).isEqualTo(MigrationFiles.OUTBOX.size());
        PostgresOutboxConfig perKey = PostgresOutboxConfig.builder()
                .layout(StoreLayout.IN_PLACE)
                .tableName("events")
                .ordering(Ordering.perKey(Ordering.AfterDeadLetter.CONTINUE))
                .build();
        try (Connection connection = dataSource.getConnection()) {
            assertThat(new PerKeyIndexes(perKey.table()).missing(connection)).hasSize(2);
        }
        placeOrders(PostgresOutboxStore.create(dataSource, perKey), 2);

        assertThat(outbox("events", true).migrate().migrationsExecuted).isEqualTo(MigrationFiles.OUTBOX_PER_KEY.size());
        assertThat(outbox("events", true).migrate().migrationsExecuted).isZero();

        try (Connection connection = dataSource.getConnection()) {
            assertThat(new PerKeyIndexes(perKey.table()).missing(connection)).isEmpty();
        }
        assertThat(count("SELECT count(*) FROM events")).isEqualTo(2);
    }

    @Test
    @DisplayName("without the table placeholder Flyway stops before creating anything, naming the placeholder")
    void placeholderIsRequired() throws Exception {
        Flyway withoutName = Flyway.configure()
                .dataSource(dataSource)
                .locations(PostgresSchema.MIGRATIONS_LOCATION)
                .table(PostgresSchema.HISTORY_TABLE)
                .load();

        assertThatThrownBy(withoutName::migrate).hasMessageContaining("${outbox_table}");
        assertThat(count("SELECT count(*) FROM pg_tables WHERE tablename LIKE '%outbox_table%'"))
                .isZero();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"unordered", "per_key"})
    @DisplayName("the migrations and PostgresSchema.ddl(config) make the same table: columns, defaults, "
            + "constraints, indexes, storage settings, triggers")
    void migrationsAndDdlAgree(String ordering) throws Exception {
        boolean perKey = ordering.equals("per_key");
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA by_flyway");
            statement.execute("CREATE SCHEMA by_ddl");
        }
        migrateIntoByFlyway(outbox("shop_events", perKey));
        migrateIntoByFlyway(operator("shop_events"));
        migrateIntoByFlyway(inbox("shop_inbox"));
        PostgresOutboxConfig.Builder config = PostgresOutboxConfig.builder()
                .layout(StoreLayout.IN_PLACE)
                .ordering(perKey ? Ordering.perKey(Ordering.AfterDeadLetter.HOLD_KEY) : Ordering.none());
        PostgresSchema.apply(dataSource, config.tableName("by_ddl.shop_events").build());
        PostgresInbox.create(
                        dataSource,
                        PostgresInboxConfig.builder()
                                .tableName("by_ddl.shop_inbox")
                                .build())
                .ensureSchema();

        List<String> byFlyway = database.describe("by_flyway", "shop_events");
        assertThat(byFlyway)
                .anyMatch(line -> line.startsWith("column xact_id xid8"))
                .anyMatch(line -> line.startsWith("column subject text"))
                .anyMatch(line -> line.startsWith("column data_schema text"))
                .anyMatch(line -> line.startsWith("index shop_events_pending_idx"));
        assertThat(byFlyway.stream().anyMatch(line -> line.startsWith("index shop_events_key_guard_idx")))
                .isEqualTo(perKey);
        assertThat(byFlyway).isEqualTo(database.describe("by_ddl", "shop_events"));
        assertThat(database.describe("by_flyway", "shop_inbox")).isEqualTo(database.describe("by_ddl", "shop_inbox"));
        assertThat(database.describe("by_flyway", "shop_events_audit"))
                .isEqualTo(database.describe("by_ddl", "shop_events_audit"))
                .isNotEmpty();
        assertThat(database.describe("by_flyway", "shop_events_attempts"))
                .isEqualTo(database.describe("by_ddl", "shop_events_attempts"))
                .isNotEmpty();
        assertThat(database.describe("by_flyway", "shop_events_workers"))
                .isEqualTo(database.describe("by_ddl", "shop_events_workers"))
                .isNotEmpty();
    }

    @Test
    @DisplayName("the append-only layout's migrations: run twice beside the application's, they make the tables "
            + "PostgresSchema.ddl(config) makes, and the relay publishes from them in key order")
    void appendLogLayout() throws Exception {
        application().migrate();
        assertThat(appendLog("outbox_events").migrate().migrationsExecuted)
                .isEqualTo(MigrationFiles.OUTBOX_APPEND_LOG.size());
        assertThat(appendLog("outbox_events").migrate().migrationsExecuted).isZero();
        assertThat(appendLog("outbox_events").validateWithResult().validationSuccessful)
                .isTrue();

        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA by_flyway");
            statement.execute("CREATE SCHEMA by_ddl");
        }
        migrateIntoByFlyway(appendLog("shop_events"));
        migrateIntoByFlyway(operator("shop_events"));
        PostgresSchema.apply(
                dataSource,
                PostgresOutboxConfig.builder()
                        .tableName("by_ddl.shop_events")
                        .layout(StoreLayout.APPEND_LOG)
                        .build());
        for (String relation : List.of(
                "shop_events",
                "shop_events_live",
                "shop_events_p1",
                "shop_events_overflow",
                "shop_events_kept",
                "shop_events_sent",
                "shop_events_sent_p1",
                "shop_events_position",
                "shop_events_floor",
                "shop_events_state",
                "shop_events_state_kept",
                "shop_events_state_0",
                "shop_events_lease",
                "shop_events_lease_1",
                "shop_events_events",
                "shop_events_pending",
                "shop_events_waiting",
                "shop_events_in_flight")) {
            assertThat(database.describe("by_flyway", relation))
                    .as(relation)
                    .isEqualTo(database.describe("by_ddl", relation));
        }

        PostgresOutboxConfig config = PostgresOutboxConfig.builder()
                .layout(StoreLayout.APPEND_LOG)
                .ordering(Ordering.perKey(Ordering.AfterDeadLetter.HOLD_KEY))
                .build();
        PostgresOutboxStore store = PostgresOutboxStore.create(dataSource, config);
        assertThat(store.checkHealth().healthy())
                .as(store.checkHealth().detail())
                .isTrue();
        List<UUID> appended = placeOrders(store, 3);
        assertRelayedInOrder(store, appended);
    }

    /** Runs {@code flyway}'s migrations into the schema {@code by_flyway}. */
    private static void migrateIntoByFlyway(Flyway flyway) {
        Flyway.configure()
                .configuration(flyway.getConfiguration())
                .schemas("by_flyway")
                .defaultSchema("by_flyway")
                .load()
                .migrate();
    }

    /** A relay on {@code store} publishes exactly {@code appended}, in that order. */
    private void assertRelayedInOrder(PostgresOutboxStore store, List<UUID> appended) {
        RecordingPublisher publisher = new RecordingPublisher();
        Relay relay = new Relay(
                store,
                publisher,
                new RelayConfig(100, Duration.ofSeconds(10), store.config().ordering()),
                RetryPolicy.ofDefaults(),
                clock,
                RelayListener.NONE);
        for (int tick = 0; tick < 10 && publisher.published().size() < appended.size(); tick++) {
            relay.runOnce();
        }
        assertThat(publisher.published()).extracting(OutboxEvent::id).containsExactlyElementsOf(appended);
    }

    /** Inserts {@code count} orders and their events in one transaction, as an application does. */
    private List<UUID> placeOrders(PostgresOutboxStore store, int count) throws SQLException {
        List<OutboxEvent> events = new ArrayList<>();
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            try (PreparedStatement insert =
                    connection.prepareStatement("INSERT INTO orders (id, customer, total_cents) VALUES (?, ?, ?)")) {
                for (int i = 0; i < count; i++) {
                    insert.setLong(1, i + 1);
                    insert.setString(2, "customer-" + i);
                    insert.setLong(3, 100L * (i + 1));
                    insert.addBatch();
                    events.add(OutboxEvent.builder()
                            .clock(clock)
                            .type("order.placed")
                            .key("order-" + (i + 1))
                            .destination("orders")
                            .payload(("{\"order\":" + (i + 1) + "}").getBytes(StandardCharsets.UTF_8))
                            .build());
                }
                insert.executeBatch();
            }
            List<UUID> ids = store.writer().append(connection, events).stream()
                    .map(OutboxEvent::id)
                    .toList();
            connection.commit();
            return ids;
        }
    }

    private static List<String> versions(Flyway flyway) {
        List<String> versions = new ArrayList<>();
        for (MigrationInfo info : flyway.info().applied()) {
            versions.add(
                    info.getVersion() == null ? "repeatable" : info.getVersion().getVersion());
        }
        return versions;
    }

    private long count(String sql) throws SQLException {
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(sql)) {
            rows.next();
            return rows.getLong(1);
        }
    }
}
