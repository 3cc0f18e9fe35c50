package dev.outboxjava.relayapp.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.DeadLetterMark;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.relayapp.OutboxCli;
import dev.outboxjava.relayapp.internal.cli.ExitCodes;
import dev.outboxjava.testkit.postgres.PostgresFixture;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The operator commands with many outboxes configured, in process against the real PostgreSQL: two tenant
 * schemas in different states; {@code status} shows each and the summary, listed or discovered; a command
 * that changes events needs {@code --table} and touches that outbox only.
 */
@DisplayName("The command line with many outboxes")
class ManyOutboxesCliIT {

    private static final String TABLE = "outbox";

    private final PostgresFixture postgres = PostgresFixture.shared();

    /** Every tenant schema of this test starts with it, so the pattern matches no other test's schema. */
    private final String prefix =
            "mc" + UUID.randomUUID().toString().replace("-", "").substring(0, 8).toLowerCase(Locale.ROOT) + "_";

    private final List<String> schemas = new ArrayList<>();

    @TempDir
    Path dir;

    private Tenant a;
    private Tenant b;

    /** Tenant a: 3 pending, 2 dead letters. Tenant b: 1 in flight, 4 dead letters, nothing eligible. */
    @BeforeEach
    void tenants() throws Exception {
        a = new Tenant("a");
        // dead letters first: a lease takes the oldest events
        a.deadLetters(2);
        a.append(3, "order.placed");
        b = new Tenant("b");
        b.deadLetters(4);
        b.append(1, "order.placed");
        b.store.lease(UUID.randomUUID(), 1, Instant.now());
    }

    @AfterEach
    void dropTenants() {
        for (String schema : schemas) {
            postgres.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        }
    }

    @Test
    @DisplayName("status with outbox.tables: a block per outbox, the summary over all, the database once")
    void statusOfListedOutboxes() throws Exception {
        Run status = cli(settings("outbox.tables=" + a.name + "," + b.name), "status");

        assertThat(status.exit).as(status.output()).isEqualTo(ExitCodes.OK);
        List<String> lines = status.out.lines().toList();
        Block first = Block.of(lines, "outbox", a.name);
        assertThat(first.value("pending")).isEqualTo("3");
        assertThat(first.value("failed")).isEqualTo("2");
        assertThat(first.value("in_flight")).isEqualTo("0");
        assertThat(first.value("relay_lag_events")).isEqualTo("3");
        assertThat(first.value("behind")).isEqualTo("no");
        Block second = Block.of(lines, "outbox", b.name);
        assertThat(second.value("pending")).isEqualTo("0");
        assertThat(second.value("in_flight")).isEqualTo("1");
        assertThat(second.value("failed")).isEqualTo("4");
        assertThat(second.value("relay_lag_events")).isEqualTo("1");
        Block summary = Block.of(lines, "summary", "2 outbox(es)");
        assertThat(summary.value("pending")).isEqualTo("3");
        assertThat(summary.value("in_flight")).isEqualTo("1");
        assertThat(summary.value("failed")).isEqualTo("6");
        assertThat(summary.value("relay_lag_events")).isEqualTo("4");
        assertThat(summary.value("oldest_pending_age")).endsWith("in " + a.name + ")");
        assertThat(summary.value("behind")).isEqualTo("none");
        assertThat(summary.value("missing")).isEqualTo("none");
        assertThat(lines.stream().filter(line -> line.startsWith("oldest_transaction ")))
                .as("database-wide signals once, not per outbox")
                .hasSize(1);
        assertThat(lines.stream().filter(line -> line.startsWith("ready ")))
                .singleElement()
                .asString()
                .contains("yes");
    }

    @Test
    @DisplayName("status with a discovery pattern finds the tenants now and names the one that is behind")
    void statusOfDiscoveredOutboxes() throws Exception {
        Thread.sleep(5); // tenant a's eligible events must be older than the 1 ms threshold
        Run status = cli(
                settings(
                        "outbox.table=" + TABLE,
                        "outbox.discovery.schema.pattern=" + prefix + ".*",
                        "outbox.health.max.lag=1ms"),
                "status");

        assertThat(status.exit).as(status.output()).isEqualTo(ExitCodes.NOT_READY);
        List<String> lines = status.out.lines().toList();
        assertThat(Block.of(lines, "outbox", a.name).value("behind")).startsWith("yes (");
        assertThat(Block.of(lines, "outbox", b.name).value("behind"))
                .as("nothing eligible")
                .isEqualTo("no");
        Block summary = Block.of(lines, "summary", "2 outbox(es)");
        assertThat(summary.value("failed")).isEqualTo("6");
        assertThat(summary.value("behind")).isEqualTo(a.name);
        assertThat(status.out).containsPattern("(?m)^ready\\s+no ");
    }

    @Test
    @DisplayName("status names a listed outbox whose table is missing, shows the others, and is not ready")
    void statusOfAMissingOutbox() throws Exception {
        String missing = prefix + "gone." + TABLE;

        Run status = cli(settings("outbox.tables=" + a.name + "," + missing), "status");

        assertThat(status.exit).as(status.output()).isEqualTo(ExitCodes.NOT_READY);
        List<String> lines = status.out.lines().toList();
        assertThat(Block.of(lines, "outbox", missing).value("missing")).startsWith("yes (create it with");
        assertThat(Block.of(lines, "outbox", a.name).value("pending")).isEqualTo("3");
        assertThat(Block.of(lines, "summary", "2 outbox(es)").value("missing")).isEqualTo(missing);
    }

    @Test
    @DisplayName("dead-letters requeue --table requeues that outbox's dead letters only")
    void requeueOneOutbox() throws Exception {
        Path settings = settings("outbox.tables=" + a.name + "," + b.name);

        Run requeue = cli(settings, "dead-letters", "requeue", "--all", "--table", b.name);

        assertThat(requeue.exit).as(requeue.output()).isEqualTo(ExitCodes.OK);
        assertThat(requeue.out).contains("requeued 4 dead letter(s)");
        assertThat(b.count(EventStatus.FAILED)).isZero();
        assertThat(a.count(EventStatus.FAILED)).as("the other outbox untouched").isEqualTo(2);
        assertThat(a.count(EventStatus.PENDING)).isEqualTo(3);

        Run list = cli(settings, "dead-letters", "list", "--table", a.name);
        assertThat(list.exit).as(list.output()).isEqualTo(ExitCodes.OK);
        assertThat(list.out).contains("1-2 of 2 dead letters");
    }

    @Test
    @DisplayName("without --table, a command on events is refused (exit 2) naming --table and every outbox")
    void missingTableRefused() throws Exception {
        Path listed = settings("outbox.tables=" + a.name + "," + b.name);

        Run requeue = cli(listed, "dead-letters", "requeue", "--all");

        assertThat(requeue.exit).as(requeue.output()).isEqualTo(ExitCodes.USAGE);
        assertThat(requeue.err).contains("--table").contains("outbox.tables").contains(a.name + ", " + b.name);
        assertThat(a.count(EventStatus.FAILED)).isEqualTo(2);
        assertThat(b.count(EventStatus.FAILED)).isEqualTo(4);

        Run purge = cli(
                settings("outbox.table=" + TABLE, "outbox.discovery.schema.pattern=" + prefix + ".*"),
                "purge",
                "--status",
                "failed",
                "--older-than",
                "0s");
        assertThat(purge.exit).as(purge.output()).isEqualTo(ExitCodes.USAGE);
        assertThat(purge.err)
                .contains("--table")
                .contains("outbox.discovery.schema.pattern")
                .contains(a.name + ", " + b.name);
        assertThat(a.count(EventStatus.FAILED) + b.count(EventStatus.FAILED)).isEqualTo(6);
    }

    @Test
    @DisplayName("a --table that is not a configured outbox is refused (exit 2) naming it")
    void unknownTableRefused() throws Exception {
        String other = prefix + "c." + TABLE;

        Run retries = cli(settings("outbox.tables=" + a.name + "," + b.name), "retries", "list", "--table", other);

        assertThat(retries.exit).as(retries.output()).isEqualTo(ExitCodes.USAGE);
        assertThat(retries.err).contains("--table " + other + " is not a configured outbox");
    }

    private Path settings(String... lines) throws Exception {
        Path file = dir.resolve("outbox-" + UUID.randomUUID() + ".properties");
        List<String> all = new ArrayList<>(List.of(
                "outbox.db.url=" + postgres.jdbcUrl(),
                "outbox.db.user=" + postgres.user(),
                "outbox.db.password=" + postgres.password()));
        all.addAll(List.of(lines));
        Files.write(file, all);
        return file;
    }

    private static Run cli(Path settings, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine commandLine = OutboxCli.commandLine();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        String[] withConfig = java.util.Arrays.copyOf(args, args.length + 2);
        withConfig[args.length] = "--config";
        withConfig[args.length + 1] = settings.toString();
        int exit = commandLine.execute(withConfig);
        return new Run(exit, out.toString(), err.toString());
    }

    /** What one command printed and its exit code. */
    private record Run(int exit, String out, String err) {
        String output() {
            return out + err;
        }
    }

    /** The lines of one block of {@code status}: from its first line to the next {@code outbox} or {@code summary}. */
    private record Block(List<String> lines) {

        static Block of(List<String> all, String name, String value) {
            int start = -1;
            for (int i = 0; i < all.size(); i++) {
                if (all.get(i).matches(name + "\\s+" + java.util.regex.Pattern.quote(value))) {
                    start = i;
                }
            }
            assertThat(start)
                    .as("a line '%s %s' in%n%s", name, value, String.join("\n", all))
                    .isNotNegative();
            int end = start + 1;
            while (end < all.size() && !all.get(end).matches("(outbox|summary)\\s.*")) {
                end++;
            }
            return new Block(all.subList(start + 1, end));
        }

        String value(String name) {
            return lines.stream()
                    .filter(line -> line.matches(name + "\\s.*"))
                    .map(line -> line.substring(name.length()).strip())
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no line " + name + " in " + lines));
        }
    }

    /** A tenant: its own schema with an outbox table of the worker's default layout. */
    private final class Tenant {
        final String name;
        final PostgresOutboxStore store;

        Tenant(String suffix) {
            String schema = prefix + suffix;
            postgres.execute("CREATE SCHEMA " + schema);
            schemas.add(schema);
            name = schema + "." + TABLE;
            store = PostgresOutboxStore.create(
                    postgres.dataSource(),
                    PostgresOutboxConfig.builder().tableName(name).build());
            store.ensureSchema();
        }

        List<UUID> append(int count, String type) throws Exception {
            List<OutboxEvent> events = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                events.add(OutboxEvent.builder()
                        .type(type)
                        .destination("orders")
                        .key(name + "-" + i)
                        .payload(("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8))
                        .build());
            }
            try (Connection connection = postgres.dataSource().getConnection()) {
                connection.setAutoCommit(false);
                List<UUID> ids = store.writer().append(connection, events).stream()
                        .map(OutboxEvent::id)
                        .toList();
                connection.commit();
                return ids;
            }
        }

        void deadLetters(int count) throws Exception {
            append(count, "payment.failed");
            UUID lease = UUID.randomUUID();
            List<UUID> leased = store.lease(lease, count, Instant.now()).stream()
                    .map(OutboxEvent::id)
                    .toList();
            store.markDeadLettered(
                    lease,
                    leased.stream()
                            .map(id -> new DeadLetterMark(id, "broker said no"))
                            .toList(),
                    Instant.now());
        }

        long count(EventStatus status) {
            return store.countByStatus().getOrDefault(status, 0L);
        }
    }
}
