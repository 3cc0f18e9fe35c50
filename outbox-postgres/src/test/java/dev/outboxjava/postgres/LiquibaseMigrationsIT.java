package dev.outboxjava.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.RetryPolicy;
import dev.outboxjava.core.relay.Relay;
import dev.outboxjava.core.relay.RelayConfig;
import dev.outboxjava.core.relay.RelayListener;
import dev.outboxjava.core.time.ManualClock;
import dev.outboxjava.postgres.inbox.PostgresInbox;
import dev.outboxjava.postgres.inbox.PostgresInboxConfig;
import dev.outboxjava.testkit.RecordingPublisher;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import liquibase.command.CommandScope;
import liquibase.command.core.UpdateCommandStep;
import liquibase.command.core.helpers.DbUrlConnectionArgumentsCommandStep;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The shipped migrations as a Liquibase user includes them: {@code sqlFile} change sets with the table
 * names as changelog properties, in the application's own changelog (test resource
 * {@code db/shop-liquibase}).
 */
@DisplayName("The shipped migrations under Liquibase, in an application's changelog")
class LiquibaseMigrationsIT {

    private static final String CHANGELOG = "db/shop-liquibase/changelog.xml";

    private final ManualClock clock = ManualClock.startingAtEpochOf2024();
    private ScratchDatabase database;
    private DataSource dataSource;

    @BeforeEach
    void emptyDatabase() {
        database = new ScratchDatabase("outbox_liquibase");
        dataSource = database.dataSource();
    }

    @AfterEach
    void dropDatabase() {
        database.close();
    }

    private void update() throws Exception {
        try (Connection connection = dataSource.getConnection()) {
            Database target =
                    DatabaseFactory.getInstance().findCorrectDatabaseImplementation(new JdbcConnection(connection));
            new CommandScope(UpdateCommandStep.COMMAND_NAME)
                    .addArgumentValue(DbUrlConnectionArgumentsCommandStep.DATABASE_ARG, target)
                    .addArgumentValue(UpdateCommandStep.CHANGELOG_FILE_ARG, CHANGELOG)
                    .execute();
        }
    }

    @Test
    @DisplayName("updated twice, the tables are those of PostgresSchema.ddl(config), and the relay publishes from them")
    void updateTwiceThenRelay() throws Exception {
        update();
        update();

        assertThat(changeSets())
                .containsExactly(
                        "1",
                        "outbox-table-1",
                        "outbox-table-2",
                        "outbox-per-key-indexes",
                        "outbox-operator-1",
                        "outbox-operator-2",
                        "outbox-operator-3",
                        "outbox-operator-4",
                        "outbox-operator-5",
                        "outbox-inbox-table-1");
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA by_ddl");
        }
        PostgresOutboxConfig perKey = PostgresOutboxConfig.builder()
                .layout(StoreLayout.IN_PLACE)
                .ordering(Ordering.perKey(Ordering.AfterDeadLetter.HOLD_KEY))
                .build();
        PostgresSchema.apply(
                dataSource, perKey.toBuilder().tableName("by_ddl.outbox_events").build());
        PostgresInbox.create(
                        dataSource,
                        PostgresInboxConfig.builder()
                                .tableName("by_ddl.outbox_inbox")
                                .build())
                .ensureSchema();
        assertThat(database.describe("public", "outbox_events"))
                .isEqualTo(database.describe("by_ddl", "outbox_events"));
        assertThat(database.describe("public", "outbox_inbox")).isEqualTo(database.describe("by_ddl", "outbox_inbox"));
        assertThat(database.describe("public", "outbox_events_audit"))
                .isEqualTo(database.describe("by_ddl", "outbox_events_audit"));
        assertThat(database.describe("public", "outbox_events_attempts"))
                .isEqualTo(database.describe("by_ddl", "outbox_events_attempts"))
                .isNotEmpty();
        assertThat(database.describe("public", "outbox_events_workers"))
                .isEqualTo(database.describe("by_ddl", "outbox_events_workers"))
                .isNotEmpty();

        PostgresOutboxStore store = PostgresOutboxStore.create(dataSource, perKey);
        assertThat(store.checkHealth().healthy())
                .as(store.checkHealth().detail())
                .isTrue();
        OutboxEvent placed;
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            try (Statement statement = connection.createStatement()) {
                statement.execute("INSERT INTO orders (id, customer) VALUES (1, 'ada')");
            }
            placed = store.writer()
                    .append(
                            connection,
                            List.of(OutboxEvent.builder()
                                    .clock(clock)
                                    .type("order.placed")
                                    .key("order-1")
                                    .destination("orders")
                                    .payload("{}".getBytes(StandardCharsets.UTF_8))
                                    .build()))
                    .get(0);
            connection.commit();
        }
        RecordingPublisher publisher = new RecordingPublisher();
        new Relay(
                        store,
                        publisher,
                        new RelayConfig(10, Duration.ofSeconds(10), perKey.ordering()),
                        RetryPolicy.ofDefaults(),
                        clock,
                        RelayListener.NONE)
                .runOnce();
        assertThat(publisher.published()).extracting(OutboxEvent::id).containsExactly(placed.id());
    }

    private List<String> changeSets() throws Exception {
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT id FROM databasechangelog ORDER BY orderexecuted")) {
            List<String> ids = new ArrayList<>();
            while (rows.next()) {
                ids.add(rows.getString(1));
            }
            return ids;
        }
    }
}
