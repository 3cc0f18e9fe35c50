package dev.outboxjava.postgres.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * At the first lease, warns if the table lacks the indexes the layout's lease relies on (the per-key
 * indexes in place; no query when there are none to have): the lease still works without them, only
 * slower and slower as the table grows, so nothing else would tell.
 */
public final class MissingIndexWarning {

    private static final Logger log = LoggerFactory.getLogger(MissingIndexWarning.class);

    private final Layout layout;
    private final String tableName;
    private final String perKeyMigrationsLocation;
    private final AtomicBoolean checked = new AtomicBoolean();

    /**
     * @param perKeyMigrationsLocation the Flyway location that creates the per-key indexes, named in the advice
     */
    public MissingIndexWarning(Layout layout, String tableName, String perKeyMigrationsLocation) {
        this.layout = layout;
        this.tableName = tableName;
        this.perKeyMigrationsLocation = perKeyMigrationsLocation;
    }

    /** Looks once (until a look succeeds) on the lease's own connection. */
    public void checkOnce(Connection connection) {
        if (checked.get()) {
            return;
        }
        try {
            List<String> missing = layout.missingIndexes(connection);
            if (checked.compareAndSet(false, true) && !missing.isEmpty()) {
                log.warn("outbox table {}: {}", tableName, advice(missing));
            }
        } catch (SQLException e) {
            // the lease on the same connection reports a real outage; this check is tried again next lease
            log.debug(
                    "outbox table {}: could not look for the per-key indexes; trying again at the next lease",
                    tableName,
                    e);
        }
    }

    /** What to do about the missing indexes, for the warning and the health detail. */
    public String advice(List<String> missing) {
        return "per-key ordering is on but the table lacks index(es) " + String.join(", ", missing)
                + ", so every lease probes its candidates' keys without an index and slows down as the table "
                + "grows. Create them with the statements of PostgresSchema.ddl(config) for this configuration "
                + "(with Flyway, add the location " + perKeyMigrationsLocation + "), or call "
                + "store.ensureSchema()";
    }
}
