package dev.outboxjava.relayapp;

import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.StoreLayout;
import dev.outboxjava.relayapp.internal.Secrets;
import java.util.Optional;

/** Reads {@code outbox.db.*}, {@code outbox.table}, {@code outbox.completion.mode} and {@code outbox.store.layout}. */
final class DatabaseReader {

    /**
     * What the database keys say.
     *
     * @param config   the connection settings, when {@code outbox.db.url} is set
     * @param table    the outbox table (also without a URL, for {@code schema})
     * @param layout   the store layout (also without a URL, for {@code schema})
     * @param poolSize the pool size, for the cross-check with the wake-up
     */
    record Section(Optional<DatabaseConfig> config, String table, StoreLayout layout, int poolSize) {}

    private DatabaseReader() {}

    static Section read(ConfigReader reader) {
        String url = reader.string(ConfigKey.DB_URL);
        String user = reader.string(ConfigKey.DB_USER);
        String password = reader.string(ConfigKey.DB_PASSWORD);
        int poolSize = reader.integer(ConfigKey.DB_POOL_SIZE, 1, 100);
        CompletionMode completionMode = reader.choice(
                ConfigKey.COMPLETION_MODE,
                CompletionMode.KEEP_SENT,
                value -> switch (value) {
                    case "keep_sent" -> Optional.of(CompletionMode.KEEP_SENT);
                    case "delete_on_publish" -> Optional.of(CompletionMode.DELETE_ON_PUBLISH);
                    default -> Optional.empty();
                },
                "keep_sent, delete_on_publish");
        StoreLayout layout = reader.choice(
                ConfigKey.STORE_LAYOUT,
                PostgresOutboxConfig.DEFAULT_LAYOUT,
                value -> switch (value) {
                    case "in_place" -> Optional.of(StoreLayout.IN_PLACE);
                    case "append_log" -> Optional.of(StoreLayout.APPEND_LOG);
                    default -> Optional.empty();
                },
                "in_place, append_log");
        String table = reader.string(ConfigKey.TABLE);
        // The builder holds the name rules, and the longest name depends on the layout.
        reader.check(
                ConfigKey.TABLE,
                () -> PostgresOutboxConfig.builder()
                        .tableName(table)
                        .layout(layout)
                        .build());
        if (!url.isEmpty() && !url.startsWith("jdbc:postgresql:")) {
            reader.problem(
                    ConfigKey.DB_URL,
                    "must be a PostgreSQL JDBC URL starting with jdbc:postgresql:, was '" + Secrets.maskText(url)
                            + "'");
        }
        Optional<DatabaseConfig> config = url.isEmpty()
                ? Optional.empty()
                : Optional.of(new DatabaseConfig(url, user, password, poolSize, table, completionMode, layout));
        return new Section(config, table, layout, poolSize);
    }
}
