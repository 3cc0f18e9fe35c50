package dev.outboxjava.worker.it;

import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.WakeUpMode;
import org.postgresql.ds.PGSimpleDataSource;

/** The application's side of an embedded worker in tests: a plain pgjdbc data source, no pool. */
public final class PlainDataSources {

    private PlainDataSources() {}

    /** A {@link PGSimpleDataSource}: a new connection for each request, as an application may hand over. */
    public static PGSimpleDataSource simple(String url, String user, String password) {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(url);
        dataSource.setUser(user);
        dataSource.setPassword(password);
        // a loop waiting for a database that is away should fail fast and back off, not hang
        dataSource.setConnectTimeout(5);
        return dataSource;
    }

    /** The store settings for {@code table}, keeping sent rows (tests count them). */
    public static PostgresOutboxConfig keepSent(String table) {
        return PostgresOutboxConfig.builder()
                .tableName(table)
                .completionMode(CompletionMode.KEEP_SENT)
                .build();
    }

    /** {@link #keepSent(String)} with the given wake-up ({@link WakeUpMode#NONE}: the relay only polls). */
    public static PostgresOutboxConfig keepSent(String table, WakeUpMode wakeUp) {
        return keepSent(table).toBuilder().wakeUpMode(wakeUp).build();
    }
}
