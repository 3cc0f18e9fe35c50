package dev.outboxjava.relayapp;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

@DisplayName("The command line (without a database)")
class OutboxCliTest {

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine commandLine = OutboxCli.commandLine();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        return commandLine.execute(args);
    }

    @Test
    void givenHelp_thenEveryCommandAndTheExitCodesAreListed() {
        assertThat(run("--help")).isZero();
        assertThat(out.toString())
                .contains(
                        "run",
                        "status",
                        "dead-letters",
                        "retries",
                        "purge",
                        "schema",
                        "keys",
                        "config",
                        "Exit codes:",
                        "3   database unreachable",
                        "4   status: not ready");
    }

    @Test
    void givenAnyCommandsHelp_thenItListsTheExitCodes() {
        for (String[] command : new String[][] {
            {"run"},
            {"status"},
            {"dead-letters", "list"},
            {"dead-letters", "requeue"},
            {"retries", "list"},
            {"purge"},
            {"config"}
        }) {
            out.getBuffer().setLength(0);
            String[] help = java.util.Arrays.copyOf(command, command.length + 1);
            help[command.length] = "--help";
            assertThat(run(help)).isZero();
            assertThat(out.toString())
                    .as(String.join(" ", command))
                    .contains("Exit codes:", "2   wrong usage or settings", "3   database unreachable");
        }
    }

    @Test
    void givenACommandOnEventsHelp_thenItOffersTheTableOption() {
        for (String[] command : new String[][] {
            {"dead-letters", "list"},
            {"dead-letters", "show"},
            {"dead-letters", "requeue"},
            {"retries", "list"},
            {"purge"}
        }) {
            out.getBuffer().setLength(0);
            String[] help = java.util.Arrays.copyOf(command, command.length + 1);
            help[command.length] = "--help";
            assertThat(run(help)).isZero();
            assertThat(out.toString()).as(String.join(" ", command)).contains("--table=SCHEMA.TABLE");
        }
    }

    @Test
    void givenRunWithoutDatabaseOrBroker_andAnInvalidValue_thenOneRunNamesThemAll(@TempDir Path dir)
            throws IOException {
        Path file = dir.resolve("empty.properties");
        Files.writeString(file, "outbox.relay.batch.size=0\n");

        assertThat(run("run", "--config", file.toString())).isEqualTo(2);
        assertThat(err.toString())
                .contains("3 problems")
                .contains("outbox.db.url (OUTBOX_DB_URL): is required")
                .contains("outbox.broker (OUTBOX_BROKER): is required")
                .contains("outbox.relay.batch.size (OUTBOX_RELAY_BATCH_SIZE)");
    }

    @Test
    void givenConfig_thenEveryKeyIsShown_andSecretsAreMasked(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("outbox.properties");
        Files.writeString(
                file,
                "outbox.db.url=jdbc:postgresql://db/app?password=hunter2\noutbox.db.password=hunter2\n"
                        + "outbox.broker=kafka\noutbox.kafka.bootstrap.servers=k:9092\noutbox.kafka.ssl.key.password=hunter2\n"
                        + "outbox.kafka.linger.ms=20\noutbox.console.admin.token=hunter2\n");

        assertThat(run("config", "--config", file.toString()))
                .as(err.toString())
                .isZero();
        assertThat(out.toString())
                .doesNotContain("hunter2")
                .containsPattern("outbox.console.admin.token\\s+\\*\\*\\*")
                .containsPattern("outbox.db.url\\s+jdbc:postgresql://db/app\\?password=\\*\\*\\*")
                .containsPattern("outbox.db.password\\s+\\*\\*\\*")
                .containsPattern("outbox.kafka.ssl.key.password\\s+\\*\\*\\*")
                .containsPattern("outbox.kafka.linger.ms\\s+20")
                .containsPattern("outbox.relay.batch.size\\s+1000  \\(default\\)");
    }

    @Test
    void givenPerKeyOrdering_thenConfigShowsTheBatchSizeThatOrderingDefaultsTo(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("outbox.properties");
        Files.writeString(file, "outbox.ordering=per_key\n");

        assertThat(run("config", "--config", file.toString()))
                .as(err.toString())
                .isZero();
        assertThat(out.toString()).containsPattern("outbox.relay.batch.size\\s+500  \\(default\\)");
    }

    @Test
    void givenAnUnknownOptionOrAMissingRequiredOne_thenTheExitCodeIs2() {
        assertThat(run("status", "--frobnicate")).isEqualTo(2);
        assertThat(run("purge", "--status", "sent")).isEqualTo(2);
        assertThat(err.toString()).contains("--older-than");
        assertThat(run("dead-letters", "requeue")).isEqualTo(2);
        assertThat(run("purge", "--status", "pending", "--older-than", "1d"))
                .as("only terminal states")
                .isEqualTo(2);
    }

    @Test
    void givenSchema_thenTheDdlForTheTableIsPrinted_withoutADatabase() {
        assertThat(run("schema", "--table", "billing.outbox_events")).isZero();
        assertThat(out.toString())
                .contains("CREATE TABLE IF NOT EXISTS \"billing\".\"outbox_events\"")
                .contains("DROP TRIGGER IF EXISTS")
                .doesNotContain("pg_notify");
        out.getBuffer().setLength(0);
        assertThat(run("schema", "--table", "billing.outbox_events", "--notify-trigger"))
                .isZero();
        assertThat(out.toString()).contains("pg_notify('billing_outbox_events', '')");
        assertThat(run("schema", "--table", "Bad Name")).isEqualTo(2);
        assertThat(err.toString()).contains("tableName");
    }

    @Test
    void givenSchema_thenTheDdlFollowsTheTableAndOrderingSettings(@TempDir Path dir) throws IOException {
        Path unordered = dir.resolve("unordered.properties");
        Files.writeString(unordered, "outbox.table=shop.events\noutbox.store.layout=in_place\n");
        Path perKey = dir.resolve("per-key.properties");
        Files.writeString(perKey, "outbox.table=shop.events\noutbox.ordering=per_key\noutbox.store.layout=in_place\n");

        assertThat(run("schema", "--config", unordered.toString())).isZero();
        assertThat(out.toString())
                .contains("CREATE TABLE IF NOT EXISTS \"shop\".\"events\"")
                .doesNotContain("events_key_guard_idx")
                .doesNotContain("${");
        out.getBuffer().setLength(0);
        assertThat(run("schema", "--config", perKey.toString())).isZero();
        assertThat(out.toString())
                .contains("CREATE TABLE IF NOT EXISTS \"shop\".\"events\"")
                .contains("CREATE INDEX IF NOT EXISTS \"events_key_guard_idx\" ON \"shop\".\"events\"")
                .contains("CREATE INDEX IF NOT EXISTS \"events_key_held_idx\" ON \"shop\".\"events\"");
        out.getBuffer().setLength(0);
        assertThat(run("schema", "--config", perKey.toString(), "--table", "other"))
                .isZero();
        assertThat(out.toString())
                .contains("\"other_key_guard_idx\" ON \"other\"")
                .doesNotContain("shop");
    }

    @Test
    void givenTheDefaultLayout_thenSchemaPrintsTheAppendOnlyTables(@TempDir Path dir) throws IOException {
        Path log = dir.resolve("log.properties");
        Files.writeString(log, "outbox.table=shop.events\n");

        assertThat(run("schema", "--config", log.toString())).as(err.toString()).isZero();
        assertThat(out.toString())
                .contains("CREATE TABLE IF NOT EXISTS \"shop\".\"events\"")
                .contains("\"shop\".\"events_state\"")
                .contains("\"shop\".\"events_sent\"")
                .contains("\"events_log_idx\"")
                .doesNotContain("\"events_pending_idx\"");
        out.getBuffer().setLength(0);
        Path inPlace = dir.resolve("in-place.properties");
        Files.writeString(inPlace, "outbox.store.layout=in_place\n");
        assertThat(run("schema", "--config", inPlace.toString(), "--table", "billing.outbox_events"))
                .isZero();
        assertThat(out.toString()).as("the in-place layout").doesNotContain("outbox_events_state");
    }

    @Test
    void givenSchemaApplyWithoutADatabase_thenTheExitCodeIs2_andTheSettingIsNamed(@TempDir Path dir)
            throws IOException {
        Path noDatabase = dir.resolve("no-database.properties");
        Files.writeString(noDatabase, "outbox.ordering=per_key\n");

        assertThat(run("schema", "--apply", "--config", noDatabase.toString())).isEqualTo(2);
        assertThat(err.toString()).contains("outbox.db.url");
        assertThat(out.toString()).doesNotContain("CREATE TABLE");
    }

    @Test
    void givenKeys_thenTheKeyTableIsPrinted() {
        assertThat(run("keys")).isZero();
        assertThat(out.toString()).contains("| `outbox.db.url` | `OUTBOX_DB_URL` |");
    }

    @Test
    void givenInvalidSettingsInTheConfigFile_thenTheExitCodeIs2_andEveryKeyIsNamed(@TempDir Path dir)
            throws IOException {
        Path file = dir.resolve("bad.properties");
        Files.writeString(
                file,
                "outbox.db.url=jdbc:postgresql://127.0.0.1:1/x\noutbox.relay.treads=2\n"
                        + "outbox.relay.batch.size=-1\n");

        assertThat(run("status", "--config", file.toString())).isEqualTo(2);
        assertThat(err.toString())
                .contains("outbox.relay.treads: unknown setting")
                .contains("outbox.relay.batch.size (OUTBOX_RELAY_BATCH_SIZE)");
    }

    @Test
    void givenADatabaseNobodyListensOn_thenTheExitCodeIs3_andTheMessageSaysSo(@TempDir Path dir) throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        Path file = dir.resolve("outbox.properties");
        Files.writeString(file, "outbox.db.url=jdbc:postgresql://127.0.0.1:" + closedPort + "/app\n");

        assertThat(run("status", "--config", file.toString())).isEqualTo(3);
        assertThat(err.toString())
                .contains("database unreachable at jdbc:postgresql://127.0.0.1:" + closedPort)
                .contains("outbox.db.url");
        assertThat(err.toString().lines().count())
                .as("one line, no stack trace: %s", err)
                .isOne();
    }
}
