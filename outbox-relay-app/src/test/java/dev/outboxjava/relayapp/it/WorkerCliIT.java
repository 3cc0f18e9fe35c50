package dev.outboxjava.relayapp.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.DeadLetterMark;
import dev.outboxjava.testkit.fixture.ChildJvm;
import dev.outboxjava.testkit.postgres.PostgresFixture;
import dev.outboxjava.worker.testsupport.OutboxTable;
import dev.outboxjava.worker.testsupport.WorkerFixture;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The operator commands of the shaded jar, run as OS processes against a real table. */
@DisplayName("The command line against PostgreSQL")
class WorkerCliIT {

    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(60);

    @RegisterExtension
    static final WorkerFixture fixture = new WorkerFixture("worker-cli-it");

    private Path configFile;

    @BeforeEach
    void freshTable(@TempDir Path dir) throws Exception {
        configFile = dir.resolve("outbox.properties");
        PostgresFixture postgres = fixture.postgres();
        Files.writeString(
                configFile,
                "outbox.db.url=" + postgres.jdbcUrl() + "\noutbox.db.user=" + postgres.user() + "\noutbox.db.password="
                        + postgres.password() + "\noutbox.table=" + fixture.table().name + "\n");
    }

    private static Map<String, String> baseEnvironment() {
        Map<String, String> env = new HashMap<>();
        env.put("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
        return env;
    }

    private WorkerJar.Result cli(String... args) {
        String[] withConfig = new String[args.length + 2];
        System.arraycopy(args, 0, withConfig, 0, args.length);
        withConfig[args.length] = "--config";
        withConfig[args.length + 1] = configFile.toString();
        return WorkerJar.run("cli-" + args[0], baseEnvironment(), COMMAND_TIMEOUT, withConfig);
    }

    private static long figure(String output, String name) {
        Matcher matcher = Pattern.compile("(?m)^" + Pattern.quote(name) + "\\s+(\\d+)\\s*$")
                .matcher(output);
        assertThat(matcher.find()).as("'%s' in:\n%s", name, output).isTrue();
        return Long.parseLong(matcher.group(1));
    }

    /** 10 dead letters, 5 sent, 5 in flight, 10 pending: every state present. */
    private List<UUID> everyState() throws Exception {
        OutboxTable table = fixture.table();
        String exchange = fixture.destination().exchange();
        table.append(10, exchange, "payment.failed");
        table.append(5, exchange, "order.shipped");
        table.append(5, exchange, "order.paid");
        table.append(10, exchange, "order.placed");
        UUID lease = UUID.randomUUID();
        List<UUID> dead = table.store.lease(lease, 10, Instant.now()).stream()
                .map(OutboxEvent::id)
                .toList();
        table.store.markDeadLettered(
                lease,
                dead.stream()
                        .map(id -> new DeadLetterMark(id, "broker said: no"))
                        .toList(),
                Instant.now());
        UUID lease2 = UUID.randomUUID();
        table.store.markPublished(
                lease2,
                table.store.lease(lease2, 5, Instant.now()).stream()
                        .map(OutboxEvent::id)
                        .toList(),
                Instant.now());
        table.store.lease(UUID.randomUUID(), 5, Instant.now());
        return dead;
    }

    @Test
    @DisplayName("status shows the same figures as the table")
    void statusMatchesTheTable() throws Exception {
        everyState();

        WorkerJar.Result status = cli("status");

        assertThat(status.exitCode()).as(status.output()).isZero();
        Map<EventStatus, Long> counts = fixture.table().countsBySql();
        assertThat(counts)
                .containsEntry(EventStatus.PENDING, 10L)
                .containsEntry(EventStatus.IN_FLIGHT, 5L)
                .containsEntry(EventStatus.SENT, 5L)
                .containsEntry(EventStatus.FAILED, 10L);
        for (EventStatus state : EventStatus.values()) {
            assertThat(figure(status.output(), state.databaseValue()))
                    .as(state.name())
                    .isEqualTo(counts.get(state));
        }
        assertThat(figure(status.output(), "relay_lag_events")).isEqualTo(15);
        assertThat(status.output()).containsPattern("(?m)^oldest_pending_age\\s+\\d+\\.\\d{3}s \\(created ");
    }

    @Test
    @DisplayName(
            "dead-letters list/show/requeue, then the worker delivers the requeued events; purge removes sent ones")
    void requeuedDeadLettersAreDelivered() throws Exception {
        List<UUID> dead = everyState();

        WorkerJar.Result list = cli("dead-letters", "list");
        assertThat(list.exitCode()).as(list.output()).isZero();
        assertThat(list.output()).contains("1-10 of 10 dead letters");
        dead.forEach(id -> assertThat(list.output()).contains(id.toString()));

        WorkerJar.Result show = cli("dead-letters", "show", dead.get(0).toString());
        assertThat(show.exitCode()).as(show.output()).isZero();
        assertThat(show.output())
                .containsPattern("(?m)^status\\s+failed$")
                .contains("broker said: no")
                .contains("payment.failed")
                .containsPattern("(?m)^payload\\s+\\{\"order\":\\d+}$");
        assertThat(cli("dead-letters", "show", UUID.randomUUID().toString()).exitCode())
                .isEqualTo(1);

        WorkerJar.Result one =
                cli("dead-letters", "requeue", "--id", dead.get(0).toString());
        assertThat(one.output()).contains("requeued 1 dead letter(s)");
        WorkerJar.Result byType = cli("dead-letters", "requeue", "--type", "payment.failed");
        assertThat(byType.exitCode()).isZero();
        assertThat(byType.output()).contains("requeued 9 dead letter(s)");
        assertThat(fixture.table().count(EventStatus.FAILED)).isZero();

        Map<String, String> env = baseEnvironment();
        env.put("OUTBOX_BROKER", "rabbitmq");
        env.put("OUTBOX_RABBITMQ_URI", fixture.rabbit().uri());
        env.put(
                "OUTBOX_RABBITMQ_CONNECTION_NAME",
                "outbox-worker-cli-it-" + UUID.randomUUID().toString().substring(0, 8));
        env.put("OUTBOX_HTTP_PORT", "0");
        try (ChildJvm worker = WorkerJar.start("cli-run", env, "run", "--config", configFile.toString())) {
            await().atMost(Duration.ofMinutes(2))
                    .untilAsserted(() -> assertThat(fixture.inbox().ids())
                            .as("worker log:\n%s", worker.output())
                            .containsAll(dead.stream().map(UUID::toString).toList()));
            await().atMost(Duration.ofMinutes(2)).until(() -> fixture.table().count(EventStatus.PENDING) == 0);
            worker.terminate();
            worker.waitFor(Duration.ofSeconds(30));
        }
        WorkerJar.Result after = cli("status");
        assertThat(figure(after.output(), "failed")).isZero();
        assertThat(figure(after.output(), "pending")).isZero();
        long sent = figure(after.output(), "sent");
        assertThat(sent).isEqualTo(fixture.table().count(EventStatus.SENT)).isGreaterThanOrEqualTo(25);

        WorkerJar.Result purge = cli("purge", "--status", "sent", "--older-than", "0s");
        assertThat(purge.exitCode()).as(purge.output()).isZero();
        assertThat(purge.output()).contains("purged " + sent + " sent event(s)");
        assertThat(fixture.table().count(EventStatus.SENT)).isZero();
    }

    @Test
    @DisplayName("exit codes: 2 for an unknown setting, 3 for an unreachable database, 0 for schema without one")
    void exitCodesScriptsCanTrust() throws IOException {
        Map<String, String> typo = baseEnvironment();
        typo.put("OUTBOX_DB_URL", fixture.postgres().jdbcUrl());
        typo.put("OUTBOX_RELAY_BACH_SIZE", "10");
        WorkerJar.Result unknown = WorkerJar.run("cli-typo", typo, COMMAND_TIMEOUT, "status");
        assertThat(unknown.exitCode()).isEqualTo(2);
        assertThat(unknown.output()).contains("OUTBOX_RELAY_BACH_SIZE: unknown setting");

        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        Map<String, String> down = baseEnvironment();
        down.put("OUTBOX_DB_URL", "jdbc:postgresql://127.0.0.1:" + closedPort + "/test");
        WorkerJar.Result unreachable = WorkerJar.run("cli-down", down, COMMAND_TIMEOUT, "dead-letters", "list");
        assertThat(unreachable.exitCode()).isEqualTo(3);
        assertThat(unreachable.output()).contains("database unreachable");
        // `run` waits for a database that is down instead (StartDuringDatabaseOutageIT)

        WorkerJar.Result schema = WorkerJar.run(
                "cli-schema", baseEnvironment(), COMMAND_TIMEOUT, "schema", "--table", "shop.outbox_events");
        assertThat(schema.exitCode()).isZero();
        assertThat(schema.output()).contains("CREATE TABLE IF NOT EXISTS \"shop\".\"outbox_events\"");
    }
}
