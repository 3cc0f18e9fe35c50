package dev.outboxjava.postgres.inbox;

import dev.outboxjava.core.inbox.InboxResult;
import dev.outboxjava.core.inbox.InboxWork;
import dev.outboxjava.testkit.postgres.PostgresFixture;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Prints what the PostgreSQL inbox costs per message on this machine (a program, not a test): new
 * messages and duplicates, one thread and eight, each with a one-row INSERT as the consumer's
 * effect; then the cleanup rate. Uses the test database of {@link PostgresFixture} in its own schema.
 *
 * <pre>
 * mvn -q -pl outbox-postgres exec:java -Dexec.classpathScope=test \
 *     -Dexec.mainClass=dev.outboxjava.postgres.inbox.PostgresInboxThroughput [-Dexec.args=5000]
 * </pre>
 */
public final class PostgresInboxThroughput {

    private PostgresInboxThroughput() {}

    public static void main(String[] args) throws Exception {
        int messages = args.length > 0 ? Integer.parseInt(args[0]) : 5000;
        try (PostgresFixture postgres = PostgresFixture.start()) {
            String schema = postgres.newSchema();
            postgres.execute("CREATE TABLE " + schema + ".effects (message_id text NOT NULL, body text NOT NULL)");
            Clock clock = Clock.systemUTC();
            PostgresInbox inbox = PostgresInbox.create(
                    postgres.dataSource(),
                    PostgresInboxConfig.builder()
                            .tableName(schema + ".outbox_inbox")
                            .build(),
                    clock);
            inbox.ensureSchema();
            InboxWork<Connection, SQLException> effect = connection -> {
                try (PreparedStatement insert = connection.prepareStatement(
                        "INSERT INTO " + schema + ".effects (message_id, body) VALUES ('x', 'shipment')")) {
                    insert.executeUpdate();
                }
            };
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < messages; i++) {
                ids.add(UUID.randomUUID().toString());
            }
            run("warm-up (new)", 1, ids.subList(0, Math.min(500, messages)), inbox, effect);
            run("1 thread, new messages", 1, ids.subList(500, messages), inbox, effect);
            run("1 thread, duplicates", 1, ids.subList(500, messages), inbox, effect);
            List<String> more = new ArrayList<>();
            for (int i = 0; i < messages; i++) {
                more.add(UUID.randomUUID().toString());
            }
            run("8 threads, new messages", 8, more, inbox, effect);
            run("8 threads, duplicates", 8, more, inbox, effect);

            long started = System.nanoTime();
            int deleted = 0;
            int chunk;
            do {
                chunk = inbox.cleanUp(Instant.now(clock).plusSeconds(1), 5000);
                deleted += chunk;
            } while (chunk == 5000);
            print("cleanup, chunks of 5000", deleted, System.nanoTime() - started, "rows");
        }
    }

    private static void run(
            String label,
            int threads,
            List<String> ids,
            PostgresInbox inbox,
            InboxWork<Connection, SQLException> effect)
            throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        long started = System.nanoTime();
        try {
            List<Future<Integer>> parts = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int offset = t;
                parts.add(pool.submit(() -> {
                    int processed = 0;
                    for (int i = offset; i < ids.size(); i += threads) {
                        if (inbox.process("throughput", ids.get(i), effect) == InboxResult.PROCESSED) {
                            processed++;
                        }
                    }
                    return processed;
                }));
            }
            for (Future<Integer> part : parts) {
                part.get();
            }
        } finally {
            pool.shutdown();
        }
        print(label, ids.size(), System.nanoTime() - started, "messages");
    }

    private static void print(String label, int count, long nanos, String unit) {
        Duration took = Duration.ofNanos(nanos);
        System.out.printf(
                "%-28s %7d %s in %6d ms = %8.0f %s/s%n",
                label, count, unit, took.toMillis(), count / (nanos / 1e9), unit);
    }
}
