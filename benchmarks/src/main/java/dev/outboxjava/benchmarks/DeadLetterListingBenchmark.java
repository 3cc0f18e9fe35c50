package dev.outboxjava.benchmarks;

import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.port.DeadLetterFilter;
import dev.outboxjava.core.port.EventPage;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.postgres.PostgresSchema;
import dev.outboxjava.postgres.StoreLayout;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The web console's dead-letter queries on a million dead letters: the first page, a page deep in the
 * list (by position, not offset), each filter, and the counts the list shows, in both store layouts,
 * each query timed over several runs (median and worst) with its plan. A program that prints figures,
 * not a test: the figures depend on the machine, the plans do not.
 *
 * <pre>
 * mvn -B -q -pl benchmarks -am package -DskipTests
 * java -cp benchmarks/target/outbox-benchmarks.jar dev.outboxjava.benchmarks.DeadLetterListingBenchmark \
 *     [jdbc-url] [rows] [in_place|append_log|both]
 * </pre>
 *
 * Defaults: {@code jdbc:postgresql://127.0.0.1:5432/test} (user postgres), 1,000,000 rows, both layouts.
 * Everything is created in a schema of its own, dropped at the end.
 */
public final class DeadLetterListingBenchmark {

    private static final int RUNS = 15;
    private static final int PAGE = 50;

    private DeadLetterListingBenchmark() {}

    public static void main(String[] args) throws Exception {
        String url = args.length > 0 ? args[0] : "jdbc:postgresql://127.0.0.1:5432/test";
        int rows = args.length > 1 ? Integer.parseInt(args[1]) : 1_000_000;
        String layouts = args.length > 2 ? args[2] : "both";
        String schema = "bench_dead_letters_"
                + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setUrl(url);
        dataSource.setUser("postgres");
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA " + schema);
        }
        try {
            if (!layouts.equals("append_log")) {
                run(dataSource, schema, rows, StoreLayout.IN_PLACE);
            }
            if (!layouts.equals("in_place")) {
                run(dataSource, schema, rows, StoreLayout.APPEND_LOG);
            }
        } finally {
            try (Connection connection = dataSource.getConnection();
                    Statement statement = connection.createStatement()) {
                statement.execute("DROP SCHEMA " + schema + " CASCADE");
            }
        }
    }

    private static void run(PGSimpleDataSource dataSource, String schema, int rows, StoreLayout layout)
            throws SQLException {
        String table = schema + ".dl_" + layout.name().toLowerCase(Locale.ROOT);
        PostgresOutboxConfig inPlace = PostgresOutboxConfig.builder()
                .layout(StoreLayout.IN_PLACE)
                .tableName(table)
                .ordering(Ordering.perKey(Ordering.AfterDeadLetter.HOLD_KEY))
                .build();
        PostgresSchema.apply(dataSource, inPlace);
        Instant start = Instant.parse("2026-01-01T00:00:00Z");
        long began = System.nanoTime();
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement()) {
            // 50 types, 20 destinations, 100,000 keys, 5 kinds of error, one event a few seconds apart over a month
            statement.execute("""
                    INSERT INTO %s (id, type, source, event_key, destination, content_type, payload, headers, status,
                                    attempts, max_attempts, last_error, next_attempt_at, created_at)
                    SELECT gen_random_uuid(), 'order.type-' || (i %% 50), '/bench', 'key-' || (i %% 100000),
                           'topic-' || (i %% 20), 'application/json',
                           convert_to(repeat('{"order":' || i || '}', 10), 'UTF8'), '{"tenant":"acme"}', 'failed',
                           10, 10, (ARRAY['TimeoutException: no ack within 30s', 'NO_ROUTE: unroutable',
                                          'RecordTooLargeException: 2 MB', 'UnknownTopicOrPartitionException',
                                          'AuthorizationException: topic denied'])[1 + i %% 5],
                           now(), timestamptz '%s' + (i * interval '2.5 seconds')
                      FROM generate_series(1, %d) i
                    """.formatted(inPlace.tableName(), start, rows));
            statement.execute("ANALYZE " + inPlace.tableName());
        }
        if (layout == StoreLayout.APPEND_LOG) {
            PostgresOutboxConfig log = PostgresOutboxConfig.builder()
                    .tableName(table)
                    .layout(StoreLayout.APPEND_LOG)
                    .ordering(Ordering.perKey(Ordering.AfterDeadLetter.HOLD_KEY))
                    .build();
            PostgresSchema.convertToAppendLog(dataSource, log);
            try (Connection connection = dataSource.getConnection();
                    Statement statement = connection.createStatement()) {
                statement.execute("VACUUM ANALYZE " + table);
                statement.execute("VACUUM ANALYZE " + table + "_state");
            }
            inPlace = log;
        } else {
            try (Connection connection = dataSource.getConnection();
                    Statement statement = connection.createStatement()) {
                statement.execute("VACUUM ANALYZE " + table);
            }
        }
        System.out.printf(
                "%n## %s layout: %,d dead letters (loaded in %.1f s)%n%n",
                layout, rows, (System.nanoTime() - began) / 1e9);
        // a pool, as the worker has: the figures are the queries', not the connection set-ups'
        try (PostgresOutboxStore store = PostgresOutboxStore.create(dataSource.getUrl(), "postgres", "", inPlace)) {
            EventPage first = store.findDeadLetters(DeadLetterFilter.any(), OptionalLong.empty(), PAGE);
            long deep = first.events().get(0).sequence() + (long) (rows * 0.9);
            Instant lastDay =
                    start.plus((long) (rows * 2.5), ChronoUnit.SECONDS).minus(1, ChronoUnit.DAYS);
            List<Object[]> cases = List.of(
                    new Object[] {"first page, no filter", DeadLetterFilter.any(), OptionalLong.empty()},
                    new Object[] {"page at 90 % (by position)", DeadLetterFilter.any(), OptionalLong.of(deep)},
                    new Object[] {
                        "type (1 in 50)", DeadLetterFilter.any().withType("order.type-7"), OptionalLong.empty()
                    },
                    new Object[] {
                        "destination (1 in 20)", DeadLetterFilter.any().withDestination("topic-3"), OptionalLong.empty()
                    },
                    new Object[] {"key (10 events)", DeadLetterFilter.any().withKey("key-4242"), OptionalLong.empty()},
                    new Object[] {
                        "error contains (1 in 5)",
                        DeadLetterFilter.any().withErrorContaining("no_route"),
                        OptionalLong.empty()
                    },
                    new Object[] {
                        "created in the last day",
                        DeadLetterFilter.any().withCreated(Optional.of(lastDay), Optional.empty()),
                        OptionalLong.empty()
                    },
                    new Object[] {
                        "type + destination (none match)",
                        DeadLetterFilter.any().withType("order.type-7").withDestination("topic-4"),
                        OptionalLong.empty()
                    });
            System.out.println("| query | page median ms | page worst ms | count to 10,000 median ms | exact count "
                    + "median ms | matches |");
            System.out.println("|---|---|---|---|---|---|");
            for (Object[] c : cases) {
                DeadLetterFilter filter = (DeadLetterFilter) c[1];
                OptionalLong after = (OptionalLong) c[2];
                double[] page =
                        time(() -> store.findDeadLetters(filter, after, PAGE).events());
                long[] counted = new long[1];
                double[] count = time(() -> counted[0] = store.countDeadLetters(filter));
                long[] bound = new long[1];
                double[] bounded = time(() -> bound[0] = store.countDeadLetters(filter, 10_000));
                System.out.printf(
                        Locale.ROOT,
                        "| %s | %.1f | %.1f | %.1f | %.1f | %,d |%n",
                        c[0],
                        page[0],
                        page[1],
                        bounded[0],
                        count[0],
                        counted[0]);
            }
            System.out.println();
            try (Connection connection = dataSource.getConnection();
                    Statement statement = connection.createStatement()) {
                statement.execute("SET plan_cache_mode = force_custom_plan");
                explain(
                        statement,
                        "first page",
                        "SELECT id FROM %s WHERE status = 'failed' ORDER BY seq LIMIT 51",
                        table,
                        layout);
                explain(
                        statement,
                        "page at 90 %",
                        "SELECT id FROM %s WHERE status = 'failed' AND seq > " + deep + " ORDER BY seq LIMIT 51",
                        table,
                        layout);
                explain(
                        statement,
                        "by key",
                        "SELECT id FROM %s WHERE status = 'failed' AND event_key = 'key-4242'"
                                + " ORDER BY seq LIMIT 51",
                        table,
                        layout);
                if (layout == StoreLayout.IN_PLACE) {
                    explain(
                            statement,
                            "by type and destination (none match)",
                            "SELECT id FROM %s WHERE status = 'failed'"
                                    + " AND type = 'order.type-7' AND destination = 'topic-4' ORDER BY seq LIMIT 51",
                            table,
                            layout);
                    explain(
                            statement,
                            "created in the last day",
                            "SELECT id FROM %s WHERE status = 'failed'" + " AND created_at >= '" + lastDay
                                    + "' ORDER BY seq LIMIT 51",
                            table,
                            layout);
                }
            }
        }
    }

    private static void explain(Statement statement, String name, String sql, String table, StoreLayout layout)
            throws SQLException {
        String from = layout == StoreLayout.APPEND_LOG ? table + "_state" : table;
        System.out.println("plan, " + name + ":");
        try (var rs = statement.executeQuery("EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) " + sql.formatted(from))) {
            while (rs.next()) {
                System.out.println("    " + rs.getString(1));
            }
        }
    }

    /** Median and worst of {@link #RUNS} runs after two warm-up runs, in milliseconds. */
    private static double[] time(Runnable query) {
        query.run();
        query.run();
        double[] ms = new double[RUNS];
        for (int i = 0; i < RUNS; i++) {
            long start = System.nanoTime();
            query.run();
            ms[i] = (System.nanoTime() - start) / 1e6;
        }
        Arrays.sort(ms);
        return new double[] {ms[RUNS / 2], ms[RUNS - 1]};
    }
}
