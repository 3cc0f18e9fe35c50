package dev.outboxjava.relayapp.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.AuditEntry;
import dev.outboxjava.core.port.DeadLetterMark;
import dev.outboxjava.core.port.RetryMark;
import dev.outboxjava.testkit.postgres.PostgresFixture;
import dev.outboxjava.testkit.rabbitmq.RabbitMqFixture;
import dev.outboxjava.worker.testsupport.OutboxTable;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The operator commands of the shaded jar as an operator meets them: tables, totals, errors and exit codes. */
@DisplayName("The command line, as an operator reads it")
class OperatorCliIT {

    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(60);
    private static final String LONG_ERROR = "broker said no: exchange 'orders' refused the message because\n"
            + "the policy of the virtual host forbids it; this text goes on well past the width of a table";

    private PostgresFixture postgres;
    private OutboxTable table;

    @BeforeEach
    void table() {
        postgres = PostgresFixture.shared();
        table = new OutboxTable(postgres);
    }

    @AfterEach
    void dropTable() {
        table.close();
    }

    private Map<String, String> environment() {
        Map<String, String> env = new HashMap<>();
        env.put("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
        env.put("OUTBOX_DB_URL", postgres.jdbcUrl());
        env.put("OUTBOX_DB_USER", postgres.user());
        env.put("OUTBOX_DB_PASSWORD", postgres.password());
        env.put("OUTBOX_TABLE", table.name);
        return env;
    }

    private WorkerJar.Result cli(Map<String, String> env, String... args) {
        return WorkerJar.run("operator-" + args[0], env, COMMAND_TIMEOUT, args);
    }

    private WorkerJar.Result cli(String... args) {
        return cli(environment(), args);
    }

    private static void assertNoStackTrace(WorkerJar.Result result) {
        assertThat(result.output()).as(result.output()).doesNotContain("\tat ").doesNotContain("Exception:");
    }

    @Test
    @DisplayName(
            "dead-letters list: a table with a header, fitted columns, the error shortened and a total; json in full")
    void deadLetterTable() throws Exception {
        List<UUID> dead = deadLetters(3);

        WorkerJar.Result list = cli("dead-letters", "list", "--limit", "2");
        assertThat(list.exitCode()).as(list.output()).isZero();
        List<String> lines =
                list.output().lines().filter(line -> !line.isBlank()).toList();
        assertThat(lines.get(0))
                .matches(
                        "ID\\s{2,}TYPE\\s{2,}KEY\\s{2,}DESTINATION\\s{2,}ATTEMPTS\\s{2,}CREATED\\s{2,}" + "LAST ERROR");
        assertThat(lines.get(1))
                .startsWith(dead.get(0).toString())
                .contains("payment.failed")
                .contains("1/")
                .contains("broker said no: exchange 'orders'")
                .endsWith("...")
                .doesNotContain("well past the width");
        int typeColumn = lines.get(0).indexOf("TYPE");
        assertThat(lines.get(1).indexOf("payment.failed")).as("columns line up").isEqualTo(typeColumn);
        assertThat(lines.get(2).indexOf("payment.failed")).isEqualTo(typeColumn);
        assertThat(lines).hasSize(4);
        assertThat(lines.get(3)).isEqualTo("1-2 of 3 dead letters (more with --offset 2)");

        WorkerJar.Result json = cli("dead-letters", "list", "--format", "json");
        assertThat(json.exitCode()).as(json.output()).isZero();
        JsonNode page = new ObjectMapper()
                .readTree(json.output().substring(json.output().indexOf('{')));
        assertThat(page.get("total").asLong()).isEqualTo(3);
        assertThat(page.get("events")).hasSize(3);
        assertThat(page.get("events").get(0).get("id").asText())
                .isEqualTo(dead.get(0).toString());
        assertThat(page.get("events").get(0).get("lastError").asText()).isEqualTo(LONG_ERROR);
        assertThat(page.get("events").get(0).get("status").asText()).isEqualTo("failed");
    }

    @Test
    @DisplayName("retries list: events waiting for a retry, soonest first, with attempts, next attempt and last error")
    void retryingEvents() throws Exception {
        List<UUID> ids = table.append(3, "orders", "order.placed");
        UUID lease = UUID.randomUUID();
        table.store.lease(lease, 2, Instant.now());
        Instant soon = Instant.now().plus(Duration.ofMinutes(2)).truncatedTo(ChronoUnit.SECONDS);
        Instant later = soon.plus(Duration.ofMinutes(10));
        table.store.markRetry(
                lease,
                List.of(
                        new RetryMark(ids.get(0), "timed out after 30s", later),
                        new RetryMark(ids.get(1), "connection reset", soon)),
                Instant.now());

        WorkerJar.Result list = cli("retries", "list");
        assertThat(list.exitCode()).as(list.output()).isZero();
        List<String> lines =
                list.output().lines().filter(line -> !line.isBlank()).toList();
        assertThat(lines.get(0))
                .matches("ID\\s{2,}TYPE\\s{2,}KEY\\s{2,}DESTINATION\\s{2,}ATTEMPTS\\s{2,}"
                        + "NEXT ATTEMPT\\s{2,}LAST ERROR");
        assertThat(lines.get(1))
                .startsWith(ids.get(1).toString())
                .contains(soon.toString())
                .contains("connection reset")
                .contains("1/");
        assertThat(lines.get(2))
                .startsWith(ids.get(0).toString())
                .contains(later.toString())
                .contains("timed out after 30s");
        assertThat(lines.get(3)).isEqualTo("1-2 of 2 events waiting for a retry");
        assertThat(list.output()).doesNotContain(ids.get(2).toString());
    }

    @Test
    @DisplayName("requeue of an id that is not a dead letter names it, requeues nothing and exits 1")
    void requeueUnknownId() throws Exception {
        List<UUID> dead = deadLetters(1);
        UUID pending = table.append(1, "orders", "order.placed").get(0);
        UUID unknown = UUID.randomUUID();

        WorkerJar.Result requeue = cli(
                "dead-letters",
                "requeue",
                "--id",
                dead.get(0).toString(),
                "--id",
                unknown.toString(),
                "--id",
                pending.toString());

        assertThat(requeue.exitCode()).as(requeue.output()).isEqualTo(1);
        assertThat(requeue.output())
                .contains("no event with id " + unknown)
                .contains(pending + " is pending, not a dead letter")
                .contains("nothing requeued");
        assertNoStackTrace(requeue);
        assertThat(table.count(EventStatus.FAILED)).isEqualTo(1);
    }

    @Test
    @DisplayName("requeue and purge are recorded in the audit trail: who (--by, else the OS user), what, how many")
    void audited() throws Exception {
        List<UUID> dead = deadLetters(3);

        WorkerJar.Result requeue =
                cli("dead-letters", "requeue", "--id", dead.get(0).toString(), "--by", "Grace");
        WorkerJar.Result purge = cli("purge", "--status", "failed", "--older-than", "0s");
        WorkerJar.Result dryRun = cli("purge", "--status", "failed", "--older-than", "0s", "--dry-run");

        assertThat(requeue.exitCode()).as(requeue.output()).isZero();
        assertThat(purge.exitCode()).as(purge.output()).isZero();
        assertThat(purge.output()).contains("purged 2 failed event(s)");
        assertThat(dryRun.exitCode()).as(dryRun.output()).isZero();
        List<AuditEntry> trail = table.store.auditTrail(OptionalLong.empty(), 10);
        assertThat(trail)
                .as("newest first; the dry run changes nothing and records nothing")
                .hasSize(2);
        assertThat(trail.get(0)).satisfies(entry -> {
            assertThat(entry.action()).isEqualTo(AuditEntry.PURGE);
            assertThat(entry.actor()).isEqualTo(System.getProperty("user.name") + " (cli)");
            assertThat(entry.affected()).isEqualTo(2);
            assertThat(entry.selection()).startsWith("created<");
        });
        assertThat(trail.get(1)).satisfies(entry -> {
            assertThat(entry.action()).isEqualTo(AuditEntry.REQUEUE);
            assertThat(entry.actor()).isEqualTo("Grace (cli)");
            assertThat(entry.affected()).isEqualTo(1);
            assertThat(entry.selection()).isEqualTo("id=" + dead.get(0));
        });
    }

    @Test
    @DisplayName("purge --dry-run says what would go and deletes nothing")
    void purgeDryRun() throws Exception {
        deadLetters(3);

        WorkerJar.Result dryRun = cli("purge", "--status", "failed", "--older-than", "0s", "--dry-run");

        assertThat(dryRun.exitCode()).as(dryRun.output()).isZero();
        assertThat(dryRun.output()).contains("would purge 3 failed event(s)").contains("nothing deleted");
        assertThat(table.count(EventStatus.FAILED)).isEqualTo(3);
    }

    @Test
    @DisplayName("status exits 4 when the worker would not be ready, 0 when it would")
    void statusExitCode() throws Exception {
        WorkerJar.Result ready = cli("status");
        assertThat(ready.exitCode()).as(ready.output()).isZero();

        table.append(1, "orders", "order.placed");
        Map<String, String> strict = environment();
        strict.put("OUTBOX_HEALTH_MAX_LAG", "1ms");
        Thread.sleep(5); // the event must be older than the 1 ms threshold
        WorkerJar.Result behind = cli(strict, "status");
        assertThat(behind.exitCode()).as(behind.output()).isEqualTo(4);
        assertThat(behind.output()).containsPattern("(?m)^ready\\s+no ");
    }

    @Test
    @DisplayName("run without the outbox table: a configuration error naming the schema command, exit 2")
    void runWithoutTable() {
        Map<String, String> env = environment();
        env.put("OUTBOX_TABLE", table.schema + ".no_such_table");
        env.put("OUTBOX_BROKER", "rabbitmq");
        env.put("OUTBOX_HTTP_PORT", "0");

        WorkerJar.Result run = cli(env, "run");

        assertThat(run.exitCode()).as(run.output()).isEqualTo(2);
        assertThat(run.output())
                .contains("outbox.table (OUTBOX_TABLE)")
                .contains("outbox-worker schema --table " + table.schema + ".no_such_table");
        assertNoStackTrace(run);
    }

    @Test
    @DisplayName("run with its HTTP port taken: one clear line, exit 2, no stack trace")
    void portInUse() throws Exception {
        try (RabbitMqFixture rabbit = RabbitMqFixture.start();
                ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            Map<String, String> env = environment();
            env.put("OUTBOX_BROKER", "rabbitmq");
            env.put("OUTBOX_RABBITMQ_URI", rabbit.uri());
            env.put("OUTBOX_HTTP_HOST", "127.0.0.1");
            env.put("OUTBOX_HTTP_PORT", String.valueOf(taken.getLocalPort()));

            WorkerJar.Result run = cli(env, "run");

            assertThat(run.exitCode()).as(run.output()).isEqualTo(2);
            assertThat(run.output()
                            .lines()
                            .filter(line -> line.startsWith("error:"))
                            .toList())
                    .singleElement()
                    .asString()
                    .contains("127.0.0.1:" + taken.getLocalPort() + ": Address already in use")
                    .contains("OUTBOX_HTTP_PORT");
            assertNoStackTrace(run);
        }
    }

    @Test
    @DisplayName("dead-letters list and show write the control characters of keys, types and errors as escapes")
    void controlCharactersEscaped() throws Exception {
        OutboxEvent hostile = OutboxEvent.builder()
                .type("order.\u001b]0;pwned\u0007")
                .key("k\u001b[2J")
                .destination("orders")
                .header("x-note", "bell\u0007")
                .payload("line1\r\nline2 \u001b[0m".getBytes(java.nio.charset.StandardCharsets.UTF_8))
                .build();
        table.store.transactional().inTransaction(connection -> List.of(hostile));
        UUID lease = UUID.randomUUID();
        table.store.lease(lease, 1, Instant.now());
        table.store.markDeadLettered(
                lease, List.of(new DeadLetterMark(hostile.id(), "boom\u001b[31m red\rover")), Instant.now());

        WorkerJar.Result list = cli("dead-letters", "list");
        WorkerJar.Result show = cli("dead-letters", "show", hostile.id().toString());

        for (WorkerJar.Result result : List.of(list, show)) {
            assertThat(result.exitCode()).as(result.output()).isZero();
            assertThat(result.output())
                    .as("no raw control character but line breaks")
                    .doesNotContainPattern("[\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f]")
                    .contains("order.\\u001B]0;pwned\\u0007", "k\\u001B[2J", "boom\\u001B[31m red");
        }
        assertThat(show.output())
                .contains("boom\\u001B[31m red\\u000Dover", "x-note=bell\\u0007", "line1\\u000D\nline2 \\u001B[0m");
    }

    /** Dead letters of type payment.failed with a long two-line error, oldest first. */
    private List<UUID> deadLetters(int count) throws Exception {
        table.append(count, "orders", "payment.failed");
        UUID lease = UUID.randomUUID();
        List<UUID> dead = table.store.lease(lease, count, Instant.now()).stream()
                .map(OutboxEvent::id)
                .toList();
        table.store.markDeadLettered(
                lease,
                dead.stream().map(id -> new DeadLetterMark(id, LONG_ERROR)).toList(),
                Instant.now());
        return dead;
    }
}
