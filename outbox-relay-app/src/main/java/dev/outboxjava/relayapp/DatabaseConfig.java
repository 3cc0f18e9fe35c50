package dev.outboxjava.relayapp;

import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.postgres.StoreLayout;
import java.util.Objects;

/**
 * How the worker reaches the outbox table: connection, pool size, schema and table, completion mode.
 * Loaded from {@code outbox.db.*}, {@code outbox.table} and {@code outbox.completion.mode}.
 *
 * @param url            JDBC URL ({@code jdbc:postgresql://...})
 * @param user           user name; empty = the driver's default or the one in the URL
 * @param password       password; empty = none or the one in the URL
 * @param poolSize       most connections the worker opens
 * @param table          the outbox table, {@code table} or {@code schema.table}
 * @param completionMode what happens to a row once its publish is acknowledged
 * @param layout         how the store keeps its events ({@code outbox.store.layout})
 */
public record DatabaseConfig(
        String url,
        String user,
        String password,
        int poolSize,
        String table,
        CompletionMode completionMode,
        StoreLayout layout) {

    /** Default pool size: 4. */
    public static final int DEFAULT_POOL_SIZE = 4;

    public DatabaseConfig {
        Objects.requireNonNull(url, "url");
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(password, "password");
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(completionMode, "completionMode");
        Objects.requireNonNull(layout, "layout");
    }

    /** In the in-place layout ({@link StoreLayout#IN_PLACE}), not the library's default. */
    public DatabaseConfig(
            String url, String user, String password, int poolSize, String table, CompletionMode completionMode) {
        this(url, user, password, poolSize, table, completionMode, StoreLayout.IN_PLACE);
    }

    /** Never prints the password, neither the setting nor one in the URL. */
    @Override
    public String toString() {
        return "DatabaseConfig[url=" + dev.outboxjava.relayapp.internal.Secrets.maskText(url) + ", user=" + user
                + ", password=" + (password.isEmpty() ? "" : "***")
                + ", poolSize=" + poolSize + ", table=" + table + ", completionMode="
                + completionMode + ", layout=" + layout + "]";
    }
}
