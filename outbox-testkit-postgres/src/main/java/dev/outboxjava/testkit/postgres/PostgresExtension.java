package dev.outboxjava.testkit.postgres;

import javax.sql.DataSource;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Gives a test class its own schema in the JVM-wide {@link PostgresFixture#shared()} database and
 * drops it after the class.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final PostgresExtension postgres = new PostgresExtension();
 *
 * @Test
 * void something() {
 *     String table = postgres.schema() + ".outbox_events";
 * }
 * }</pre>
 */
public final class PostgresExtension implements BeforeAllCallback, AfterAllCallback {

    private volatile PostgresFixture fixture;
    private volatile String schema;

    @Override
    public void beforeAll(ExtensionContext context) {
        fixture = PostgresFixture.shared();
        schema = fixture.newSchema();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (fixture != null && schema != null) {
            fixture.dropSchema(schema);
        }
    }

    /** The database. */
    public PostgresFixture fixture() {
        return requireStarted(fixture);
    }

    /** This test class's schema. */
    public String schema() {
        return requireStarted(schema);
    }

    /** The fixture's pooled data source. */
    public DataSource dataSource() {
        return fixture().dataSource();
    }

    private static <T> T requireStarted(T value) {
        if (value == null) {
            throw new IllegalStateException(
                    "PostgresExtension is not started: register it as a static field " + "with @RegisterExtension");
        }
        return value;
    }
}
