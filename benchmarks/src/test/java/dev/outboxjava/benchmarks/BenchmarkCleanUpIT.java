package dev.outboxjava.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.outboxjava.testkit.fixture.LocalPort;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * A benchmark stopped with Ctrl-C (SIGTERM here) in the middle of scenario 6's one long load still
 * leaves nothing behind: its shutdown hook ends the run's sessions and drops its schema.
 */
class BenchmarkCleanUpIT {

    private static final String JDBC_URL = BenchmarkConfig.DEFAULT_JDBC_URL;

    @Test
    void aRunStoppedMidLoadDropsItsSchema() throws Exception {
        assumeTrue(LocalPort.isOpen("127.0.0.1", 5432, 1_000), "no PostgreSQL on 127.0.0.1:5432");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process run = new ProcessBuilder(List.of(
                        java,
                        "-cp",
                        System.getProperty("java.class.path"),
                        BenchmarkMain.class.getName(),
                        "--quick",
                        "--scenarios",
                        "6",
                        "--sent-rows",
                        "5000000"))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        try {
            // scenario 6 loads its sent rows in one INSERT ... SELECT generate_series: stop it there
            String schema = Awaitility.await()
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(50))
                    .until(BenchmarkCleanUpIT::schemaOfARunningLoad, Optional::isPresent)
                    .orElseThrow();

            run.destroy();

            assertThat(run.waitFor(90, TimeUnit.SECONDS))
                    .as("the benchmark exited")
                    .isTrue();
            assertThat(count("SELECT count(*) FROM pg_namespace WHERE nspname = '" + schema + "'"))
                    .isZero();
            assertThat(count("SELECT count(*) FROM pg_stat_activity WHERE starts_with(application_name, "
                            + "'outbox-benchmarks-" + schema.substring("outbox_bench_".length()) + "-')"))
                    .isZero();
        } finally {
            run.destroyForcibly();
        }
    }

    /** The schema of a benchmark run whose load statement is running now, if any. */
    private static Optional<String> schemaOfARunningLoad() throws SQLException {
        try (Connection connection = DriverManager.getConnection(JDBC_URL, "postgres", "");
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery(
                        "SELECT substring(query FROM 'outbox_bench_[0-9a-f]{8}')"
                                + " FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%INSERT INTO outbox_bench_%'"
                                + " AND query LIKE '%generate_series%' AND starts_with(application_name, 'outbox-benchmarks-')")) {
            return rs.next() ? Optional.ofNullable(rs.getString(1)) : Optional.empty();
        }
    }

    private static long count(String sql) throws SQLException {
        try (Connection connection = DriverManager.getConnection(JDBC_URL, "postgres", "");
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
