package dev.outboxjava.relayapp.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.inject.Guice;
import com.google.inject.Injector;
import com.google.inject.Stage;
import com.zaxxer.hikari.HikariDataSource;
import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.Ordering;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.postgres.StoreLayout;
import dev.outboxjava.relayapp.ConfigSource;
import dev.outboxjava.relayapp.OutboxCli;
import dev.outboxjava.relayapp.RelayAppConfig;
import dev.outboxjava.relayapp.internal.StandaloneModules;
import dev.outboxjava.testkit.postgres.PostgresFixture;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code schema}, printed and applied, against a table of the real PostgreSQL, for each ordering setting. */
@DisplayName("The schema command against PostgreSQL")
class SchemaCommandIT {

    private static PostgresFixture postgres;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();
    private String schema;
    private String table;

    @BeforeAll
    static void database() {
        postgres = PostgresFixture.shared();
    }

    @BeforeEach
    void freshSchema() {
        schema = postgres.newSchema();
        table = schema + ".outbox_events";
    }

    @AfterEach
    void dropSchema() {
        postgres.dropSchema(schema);
    }

    private int run(String... args) {
        out.getBuffer().setLength(0);
        CommandLine commandLine = OutboxCli.commandLine();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        return commandLine.execute(args);
    }

    private Path settings(Path dir, String ordering) throws IOException {
        Path file = dir.resolve("outbox-" + ordering + ".properties");
        Files.writeString(
                file,
                "outbox.db.url=" + postgres.jdbcUrl() + "\noutbox.db.user=" + postgres.user()
                        + "\noutbox.db.password=" + postgres.password() + "\noutbox.table=" + table
                        + "\noutbox.ordering=" + ordering + "\noutbox.store.layout=in_place\n");
        return file;
    }

    @Test
    @DisplayName("with outbox.ordering=per_key the printed DDL, run by psql's way (one script), makes a table "
            + "a per-key store finds complete")
    void printedPerKeyDdlHasTheIndexes(@TempDir Path dir) throws Exception {
        assertThat(run("schema", "--config", settings(dir, "per_key").toString()))
                .as(err.toString())
                .isZero();
        try (Connection connection = postgres.openConnection();
                Statement statement = connection.createStatement()) {
            statement.execute(out.toString());
        }

        assertThat(indexes()).contains("outbox_events_key_guard_idx", "outbox_events_key_held_idx");
        HealthCheck health = perKeyStore().checkHealth();
        assertThat(health.healthy()).isTrue();
        assertThat(health.detail()).doesNotContain("key_guard_idx").doesNotContain("key_held_idx");
    }

    @Test
    @DisplayName("--apply runs the DDL the settings need: per-key indexes only with outbox.ordering=per_key, "
            + "and again without harm")
    void applyFollowsTheOrderingSetting(@TempDir Path dir) throws Exception {
        assertThat(run("schema", "--apply", "--config", settings(dir, "none").toString()))
                .as(err.toString())
                .isZero();
        assertThat(out.toString()).contains(table, "outbox.ordering=none");
        assertThat(indexes()).contains("outbox_events_pending_idx").doesNotContain("outbox_events_key_guard_idx");

        for (int round = 0; round < 2; round++) {
            assertThat(run(
                            "schema",
                            "--apply",
                            "--config",
                            settings(dir, "per_key").toString()))
                    .as(err.toString())
                    .isZero();
            assertThat(out.toString()).contains(table, "per_key");
        }
        assertThat(indexes())
                .contains("outbox_events_pending_idx", "outbox_events_key_guard_idx", "outbox_events_key_held_idx");
        assertThat(perKeyStore().checkHealth().detail()).doesNotContain("key_guard_idx");
    }

    @Test
    @DisplayName("run --ensure-schema creates the per-key indexes when outbox.ordering=per_key: its store is "
            + "configured from the same settings")
    void runEnsureSchemaFollowsTheOrderingSetting(@TempDir Path dir) throws Exception {
        Path file = settings(dir, "per_key");
        Files.writeString(
                file, "outbox.broker=rabbitmq\noutbox.rabbitmq.uri=amqp://127.0.0.1:5672\n", StandardOpenOption.APPEND);
        RelayAppConfig settings =
                RelayAppConfig.load(ConfigSource.environment(Map.of()).overriding(ConfigSource.file(file)));
        Injector injector = Guice.createInjector(
                Stage.DEVELOPMENT, StandaloneModules.forSettings(settings, StandaloneModules.prometheus()));
        HikariDataSource pool = injector.getInstance(HikariDataSource.class);
        try {
            injector.getInstance(PostgresOutboxStore.class).ensureSchema();
        } finally {
            pool.close();
        }

        assertThat(indexes()).contains("outbox_events_key_guard_idx", "outbox_events_key_held_idx");
    }

    private PostgresOutboxStore perKeyStore() {
        return PostgresOutboxStore.create(
                postgres.dataSource(),
                PostgresOutboxConfig.builder()
                        .tableName(table)
                        .layout(StoreLayout.IN_PLACE)
                        .ordering(Ordering.perKey(Ordering.AfterDeadLetter.HOLD_KEY))
                        .build());
    }

    private List<String> indexes() throws SQLException {
        List<String> names = new ArrayList<>();
        try (Connection connection = postgres.openConnection();
                PreparedStatement statement = connection.prepareStatement(
                        "SELECT indexname FROM pg_indexes WHERE schemaname = ? AND tablename = 'outbox_events'")) {
            statement.setString(1, schema);
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    names.add(rows.getString(1));
                }
            }
        }
        return names;
    }
}
