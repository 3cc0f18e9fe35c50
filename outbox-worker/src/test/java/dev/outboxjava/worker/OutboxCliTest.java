package dev.outboxjava.worker;

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
        assertThat(out.toString()).contains("run", "status", "dead-letters", "purge", "schema", "keys",
                "3   database unreachable");
    }

    @Test
    void givenAnUnknownOptionOrAMissingRequiredOne_thenTheExitCodeIs2() {
        assertThat(run("status", "--frobnicate")).isEqualTo(2);
        assertThat(run("purge", "--status", "sent")).isEqualTo(2);
        assertThat(err.toString()).contains("--older-than");
        assertThat(run("dead-letters", "requeue")).isEqualTo(2);
        assertThat(run("purge", "--status", "pending", "--older-than", "1d")).as("only terminal states")
                .isEqualTo(2);
    }

    @Test
    void givenSchema_thenTheDdlForTheTableIsPrinted_withoutADatabase() {
        assertThat(run("schema", "--table", "billing.outbox_events")).isZero();
        assertThat(out.toString()).contains("CREATE TABLE IF NOT EXISTS \"billing\".\"outbox_events\"")
                .contains("DROP TRIGGER IF EXISTS").doesNotContain("pg_notify");
        out.getBuffer().setLength(0);
        assertThat(run("schema", "--table", "billing.outbox_events", "--notify-trigger")).isZero();
        assertThat(out.toString()).contains("pg_notify('billing_outbox_events', '')");
        assertThat(run("schema", "--table", "Bad Name")).isEqualTo(2);
        assertThat(err.toString()).contains("tableName");
    }

    @Test
    void givenSchema_thenTheDdlFollowsTheTableAndOrderingSettings(@TempDir Path dir) throws IOException {
        Path unordered = dir.resolve("unordered.properties");
        Files.writeString(unordered, "outbox.table=shop.events\n");
        Path perKey = dir.resolve("per-key.properties");
        Files.writeString(perKey, "outbox.table=shop.events\noutbox.ordering=per_key\n");

        assertThat(run("schema", "--config", unordered.toString())).isZero();
        assertThat(out.toString()).contains("CREATE TABLE IF NOT EXISTS \"shop\".\"events\"")
                .doesNotContain("events_key_guard_idx").doesNotContain("${");
        out.getBuffer().setLength(0);
        assertThat(run("schema", "--config", perKey.toString())).isZero();
        assertThat(out.toString()).contains("CREATE TABLE IF NOT EXISTS \"shop\".\"events\"")
                .contains("CREATE INDEX IF NOT EXISTS \"events_key_guard_idx\" ON \"shop\".\"events\"")
                .contains("CREATE INDEX IF NOT EXISTS \"events_key_held_idx\" ON \"shop\".\"events\"");
        out.getBuffer().setLength(0);
        assertThat(run("schema", "--config", perKey.toString(), "--table", "other")).isZero();
        assertThat(out.toString()).contains("\"other_key_guard_idx\" ON \"other\"").doesNotContain("shop");
    }

    @Test
    void givenSchemaApplyWithoutADatabase_thenTheExitCodeIs2_andTheSettingIsNamed(@TempDir Path dir) throws IOException {
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
        Files.writeString(file, "outbox.db.url=jdbc:postgresql://127.0.0.1:1/x\noutbox.relay.treads=2\n"
                + "outbox.relay.batch.size=-1\n");

        assertThat(run("status", "--config", file.toString())).isEqualTo(2);
        assertThat(err.toString()).contains("outbox.relay.treads: unknown setting")
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
        assertThat(err.toString()).contains("database unreachable at jdbc:postgresql://127.0.0.1:" + closedPort)
                .contains("outbox.db.url");
    }
}
