package dev.outboxjava.worker;

import dev.outboxjava.postgres.WakeUpMode;
import java.sql.SQLException;
import java.util.List;
import java.util.OptionalInt;
import javax.sql.DataSource;

/**
 * The connections a worker holds at once: one per relay thread (a relay thread keeps one while it
 * leases or marks) plus one held for good by the LISTEN wake-up. A pool smaller than that makes relay
 * threads wait for each other's connections instead of draining, so it is refused at start.
 *
 * <p>This is the least a worker runs with. While draining, a relay thread's marks run beside its next
 * lease on a second connection ({@code CompletionThread}); a pool without one to spare makes them wait
 * for the lease's, which is slower but never stuck.
 */
public final class ConnectionBudget {

    private static final String HIKARI_POOL = "com.zaxxer.hikari.HikariDataSource";

    private ConnectionBudget() {}

    /** Connections the worker may hold at the same time. */
    public static int needed(OutboxWorkerConfig config, WakeUpMode wakeUp) {
        return config.relayThreads() + (wakeUp.listens() ? 1 : 0);
    }

    /**
     * Checks that a pool of {@code poolSize} connections can serve the worker; a problem names the relay
     * threads as {@code OutboxWorkerConfig.builder().relayThreads(...)}.
     *
     * @param poolSetting the setting that sizes the pool, for the message (e.g. {@code spring.datasource.hikari.maximum-pool-size})
     * @throws InvalidSettingsException naming the relay threads and the pool setting
     */
    public static void check(OutboxWorkerConfig config, WakeUpMode wakeUp, int poolSize, String poolSetting) {
        check(config, wakeUp, poolSize, OutboxWorkerConfig.setting("relayThreads"), poolSetting);
    }

    /**
     * As {@link #check(OutboxWorkerConfig, WakeUpMode, int, String)}, for an application that reads the relay
     * threads from a setting of its own and names that setting in the problem.
     *
     * @param threadsSetting the setting that chose the relay threads, e.g. {@code outbox.relay.threads}
     * @param poolSetting    the setting that sizes the pool
     * @throws InvalidSettingsException naming both settings
     */
    public static void check(
            OutboxWorkerConfig config, WakeUpMode wakeUp, int poolSize, String threadsSetting, String poolSetting) {
        check(config, wakeUp, poolSize, threadsSetting, "wake-up mode " + wakeUp, poolSetting);
    }

    /**
     * As {@link #check(OutboxWorkerConfig, WakeUpMode, int, String, String)}, naming the wake-up mode as the
     * application's setting spells it.
     *
     * @param wakeUpSetting the setting and value that chose the wake-up mode, e.g.
     *                      {@code outbox.wake-up=notify-after-commit}
     * @throws InvalidSettingsException naming the settings
     */
    public static void check(
            OutboxWorkerConfig config,
            WakeUpMode wakeUp,
            int poolSize,
            String threadsSetting,
            String wakeUpSetting,
            String poolSetting) {
        int needed = needed(config, wakeUp);
        if (poolSize < needed) {
            throw new InvalidSettingsException(List.of(new InvalidSettingsException.Problem(
                    threadsSetting,
                    "is " + config.relayThreads()
                            + (wakeUp.listens() ? ", plus the LISTEN connection of " + wakeUpSetting : "")
                            + ": the worker needs "
                            + needed + " connections at once, but " + poolSetting + " is " + poolSize
                            + "; lower the relay threads or enlarge the pool")));
        }
    }

    /**
     * The most connections {@code dataSource} hands out, when it says (a HikariCP pool, also behind a
     * wrapping proxy such as Spring's); empty for a data source that does not.
     */
    public static OptionalInt poolSize(DataSource dataSource) {
        try {
            // by name: the worker does not depend on HikariCP, the application's pool may be one
            Class<?> hikari =
                    Class.forName(HIKARI_POOL, false, dataSource.getClass().getClassLoader());
            if (dataSource.isWrapperFor(hikari)) {
                Object pool = dataSource.unwrap(hikari);
                return OptionalInt.of(
                        (Integer) hikari.getMethod("getMaximumPoolSize").invoke(pool));
            }
        } catch (SQLException | ReflectiveOperationException | RuntimeException | LinkageError e) {
            // a data source that cannot tell, or no HikariCP on the classpath: nothing to check
        }
        return OptionalInt.empty();
    }
}
