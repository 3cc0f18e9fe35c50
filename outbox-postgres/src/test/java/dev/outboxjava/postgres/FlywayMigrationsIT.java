package dev.outboxjava.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.RetryPolicy;
import dev.outboxjava.core.inbox.InboxResult;
import dev.outboxjava.core.relay.Relay;
import dev.outboxjava.core.relay.RelayListener;
import dev.outboxjava.core.relay.RelaySettings;
import dev.outboxjava.core.time.ManualClock;
import dev.outboxjava.postgres.inbox.PostgresInbox;
import dev.outboxjava.postgres.inbox.PostgresInboxConfig;
import dev.outboxjava.postgres.inbox.PostgresInboxSchema;
import dev.outboxjava.postgres.internal.Identifiers;
import dev.outboxjava.postgres.internal.PerKeyIndexes;
import dev.outboxjava.testkit.RecordingPublisher;
import dev.outboxjava.testkit.postgres.PostgresFixture;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The shipped migrations as a user runs them: with Flyway, on a database of their own (created on the
 * shared server for this test and dropped afterwards), beside an application whose own migrations
 * start at V1 too.
 */
@DisplayName("The shipped migrations under Flyway, beside an application's own")
class FlywayMigrationsIT {

    private static final Pattern URL = Pattern.compile("(jdbc:postgresql://[^/]+/)([^?]*)(.*)");
    private static final String APPLICATION_LOCATION = "classpath:db/shop";

    private final ManualClock clock = ManualClock.startingAtEpochOf2024();
    private PostgresFixture postgres;
    private String database;
    private PGSimpleDataSource dataSource;

    @BeforeEach
    void emptyDatabase() {
        postgres = PostgresFixture.shared();
        database = "outbox_flyway_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10)
                .toLowerCase(Locale.ROOT);
        Matcher matcher = URL.matcher(postgres.jdbcUrl());
        assertThat(matcher.matches()).as("JDBC URL " + postgres.jdbcUrl()).isTrue();
        postgres.execute("CREATE DATABASE " + database);
        dataSource = new PGSimpleDataSource();
        dataSource.setUrl(matcher.group(1) + database + matcher.group(3));
        dataSource.setUser(postgres.user());
        dataSource.setPassword(postgres.password());
    }

    @AfterEach
    void dropDatabase() {
        postgres.execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
    }

    /** The application's own Flyway: its migrations, the default history table. */
    private Flyway application() {
        return Flyway.configure().dataSource(dataSource).locations(APPLICATION_LOCATION).load();
    }

    /**
     * The application's own Flyway when the outbox's may have run first on a new database: the outbox
     * table makes the schema non-empty, so it starts below its V1 as the outbox's does.
     */
    private Flyway applicationAfterOutbox() {
        return Flyway.configure().dataSource(dataSource).locations(APPLICATION_LOCATION)
                .baselineOnMigrate(true).baselineVersion("0").load();
    }

    /** The outbox's Flyway, configured exactly as the documentation says. */
    private Flyway outbox(String table, boolean perKey) {
        List<String> locations = new ArrayList<>(List.of(PostgresSchema.MIGRATIONS_LOCATION));
        if (perKey) {
            locations.add(PostgresSchema.PER_KEY_MIGRATIONS_LOCATION);
        }
        return Flyway.configure().dataSource(dataSource)
                .locations(locations.toArray(String[]::new))
                .table(PostgresSchema.HISTORY_TABLE)
                .placeholders(Map.of(PostgresSchema.TABLE_PLACEHOLDER, table))
                .baselineOnMigrate(true).baselineVersion("0")
                .load();
    }

    /** The inbox's Flyway, configured exactly as the documentation says. */
    private Flyway inbox(String table) {
        return Flyway.configure().dataSource(dataSource)
                .locations(PostgresInboxSchema.MIGRATIONS_LOCATION)
                .table(PostgresInboxSchema.HISTORY_TABLE)
                .placeholders(Map.of(PostgresInboxSchema.TABLE_PLACEHOLDER, table))
                .baselineOnMigrate(true).baselineVersion("0")
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
                assertThat(application().migrate().migrationsExecuted).as("application, round " + round)
                        .isEqualTo(round == 1 ? 2 : 0);
            }
            MigrateResult outbox = outbox("outbox_events", true).migrate();
            assertThat(outbox.migrationsExecuted).as("outbox table and per-key indexes, round " + round)
                    .isEqualTo(2 * expected);
            assertThat(inbox("outbox_inbox").migrate().migrationsExecuted).as("inbox, round " + round)
                    .isEqualTo(expected);
            if (!applicationFirst) {
                assertThat(applicationAfterOutbox().migrate().migrationsExecuted).as("application, round " + round)
                        .isEqualTo(round == 1 ? 2 : 0);
            }
        }

        assertThat(versions(application())).endsWith("1", "2");
        assertThat(versions(outbox("outbox_events", true))).endsWith("1", "repeatable");
        assertThat(versions(inbox("outbox_inbox"))).endsWith("1");
        for (Flyway flyway : List.of(application(), outbox("outbox_events", true), inbox("outbox_inbox"))) {
            assertThat(flyway.validateWithResult().validationSuccessful).isTrue();
        }

        PostgresOutboxConfig config = PostgresOutboxConfig.builder()
                .ordering(Ordering.perKey(Ordering.AfterDeadLetter.HOLD_KEY)).build();
        PostgresOutboxStore store = PostgresOutboxStore.create(dataSource, config);
        assertThat(store.checkHealth().healthy()).as(store.checkHealth().detail()).isTrue();
        try (Connection connection = dataSource.getConnection()) {
            assertThat(new PerKeyIndexes(config.table()).missing(connection)).isEmpty();
        }

        List<UUID> appended = placeOrders(store, 3);
        RecordingPublisher publisher = new RecordingPublisher();
        Relay relay = new Relay(store, publisher, new RelaySettings(100, Duration.ofSeconds(10), config.ordering()),
                RetryPolicy.ofDefaults(), clock, RelayListener.NONE);
        for (int tick = 0; tick < 10 && publisher.published().size() < appended.size(); tick++) {
            relay.runOnce();
        }
        assertThat(publisher.published()).extracting(OutboxEvent::id).containsExactlyElementsOf(appended);

        PostgresInbox consumer = PostgresInbox.create(dataSource, PostgresInboxConfig.ofDefaults(), clock);
        String messageId = appended.get(0).toString();
        assertThat(consumer.process("shipping", messageId, connection -> { })).isEqualTo(InboxResult.PROCESSED);
        assertThat(consumer.process("shipping", messageId, connection -> { })).isEqualTo(InboxResult.DUPLICATE);
    }

    @Test
    @DisplayName("per-key ordering turned on later: adding the per-key location applies its indexes and nothing else")
    void perKeyAddedLater() throws Exception {
        application().migrate();
        assertThat(outbox("events", false).migrate().migrationsExecuted).isEqualTo(1);
        PostgresOutboxConfig perKey = PostgresOutboxConfig.builder().tableName("events")
                .ordering(Ordering.perKey(Ordering.AfterDeadLetter.CONTINUE)).build();
        try (Connection connection = dataSource.getConnection()) {
            assertThat(new PerKeyIndexes(perKey.table()).missing(connection)).hasSize(2);
        }
        placeOrders(PostgresOutboxStore.create(dataSource, perKey), 2);

        assertThat(outbox("events", true).migrate().migrationsExecuted).isEqualTo(1);
        assertThat(outbox("events", true).migrate().migrationsExecuted).isZero();

        try (Connection connection = dataSource.getConnection()) {
            assertThat(new PerKeyIndexes(perKey.table()).missing(connection)).isEmpty();
        }
        assertThat(count("SELECT count(*) FROM events")).isEqualTo(2);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"unordered", "per_key"})
    @DisplayName("the migrations and PostgresSchema.ddl(config) make the same table: columns, defaults, "
            + "constraints, indexes, storage settings, triggers")
    void migrationsAndDdlAgree(String ordering) throws Exception {
        boolean perKey = ordering.equals("per_key");
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA by_flyway");
            statement.execute("CREATE SCHEMA by_ddl");
        }
        Flyway.configure().configuration(outbox("shop_events", perKey).getConfiguration())
                .schemas("by_flyway").defaultSchema("by_flyway").load().migrate();
        Flyway.configure().configuration(inbox("shop_inbox").getConfiguration())
                .schemas("by_flyway").defaultSchema("by_flyway").load().migrate();
        PostgresOutboxConfig.Builder config = PostgresOutboxConfig.builder()
                .ordering(perKey ? Ordering.perKey(Ordering.AfterDeadLetter.HOLD_KEY) : Ordering.none());
        PostgresSchema.apply(dataSource, config.tableName("by_ddl.shop_events").build());
        PostgresInbox.create(dataSource, PostgresInboxConfig.builder().tableName("by_ddl.shop_inbox").build())
                .ensureSchema();

        List<String> byFlyway = describe("by_flyway", "shop_events");
        assertThat(byFlyway).anyMatch(line -> line.startsWith("column xact_id xid8"))
                .anyMatch(line -> line.startsWith("index shop_events_pending_idx"));
        assertThat(byFlyway.stream().anyMatch(line -> line.startsWith("index shop_events_key_guard_idx")))
                .isEqualTo(perKey);
        assertThat(byFlyway).isEqualTo(describe("by_ddl", "shop_events"));
        assertThat(describe("by_flyway", "shop_inbox")).isEqualTo(describe("by_ddl", "shop_inbox"));
    }

    /** Inserts {@code count} orders and their events in one transaction, as an application does. */
    private List<UUID> placeOrders(PostgresOutboxStore store, int count) throws SQLException {
        List<OutboxEvent> events = new ArrayList<>();
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            try (PreparedStatement insert = connection.prepareStatement(
                    "INSERT INTO orders (id, customer, total_cents) VALUES (?, ?, ?)")) {
                for (int i = 0; i < count; i++) {
                    insert.setLong(1, i + 1);
                    insert.setString(2, "customer-" + i);
                    insert.setLong(3, 100L * (i + 1));
                    insert.addBatch();
                    events.add(OutboxEvent.builder().clock(clock).type("order.placed").key("order-" + (i + 1))
                            .destination("orders")
                            .payload(("{\"order\":" + (i + 1) + "}").getBytes(StandardCharsets.UTF_8)).build());
                }
                insert.executeBatch();
            }
            List<UUID> ids = store.writer().append(connection, events).stream().map(OutboxEvent::id).toList();
            connection.commit();
            return ids;
        }
    }

    private static List<String> versions(Flyway flyway) {
        List<String> versions = new ArrayList<>();
        for (MigrationInfo info : flyway.info().applied()) {
            versions.add(info.getVersion() == null ? "repeatable" : info.getVersion().getVersion());
        }
        return versions;
    }

    private long count(String sql) throws SQLException {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(sql)) {
            rows.next();
            return rows.getLong(1);
        }
    }

    /** The table as the catalog sees it, one line per fact, the schema's name left out. */
    private List<String> describe(String schema, String table) throws SQLException {
        String relation = Identifiers.quote(schema) + "." + Identifiers.quote(table);
        List<String> lines = new ArrayList<>();
        try (Connection connection = dataSource.getConnection()) {
            query(connection, """
                    SELECT 'column ' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
                           || CASE WHEN a.attnotnull THEN ' not null' ELSE '' END
                           || CASE WHEN a.attidentity::text <> '' THEN ' identity ' || a.attidentity::text ELSE '' END
                           || coalesce(' default ' || pg_get_expr(d.adbin, d.adrelid), '')
                    FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
                    WHERE a.attrelid = to_regclass(?) AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum""",
                    relation, lines);
            query(connection, """
                    SELECT 'constraint ' || conname || ' ' || pg_get_constraintdef(oid)
                    FROM pg_constraint WHERE conrelid = to_regclass(?) ORDER BY conname""", relation, lines);
            query(connection, """
                    SELECT 'index ' || i.relname || ' ' || pg_get_indexdef(x.indexrelid)
                    FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
                    WHERE x.indrelid = to_regclass(?) ORDER BY i.relname""", relation, lines);
            query(connection, """
                    SELECT 'options ' || coalesce(array_to_string(reloptions, ','), '')
                    FROM pg_class WHERE oid = to_regclass(?)""", relation, lines);
            query(connection, """
                    SELECT 'trigger ' || tgname FROM pg_trigger
                    WHERE tgrelid = to_regclass(?) AND NOT tgisinternal ORDER BY tgname""", relation, lines);
        }
        assertThat(lines).as("catalog of " + relation).isNotEmpty();
        return lines.stream().map(line -> line.replace(schema + ".", "")).toList();
    }

    private static void query(Connection connection, String sql, String relation, List<String> lines)
            throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setString(1, relation);
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    lines.add(rows.getString(1));
                }
            }
        }
    }
}
