package dev.outboxjava.postgres.inbox;

import dev.outboxjava.postgres.internal.Identifiers;

/**
 * Writes the DDL of one inbox table. The shipped migration is this text for the default table (a
 * test keeps the two identical). Every statement is idempotent.
 */
final class InboxDdl {

    private InboxDdl() {
    }

    static String render(Identifiers.TableName table) {
        String name = table.table();
        return """
                -- Outbox for Java: the inbox table %1$s (schema version 1).
                -- One row per message a consumer processed, written in the same transaction as the
                -- consumer's effect; the primary key makes a concurrent duplicate wait for the first
                -- delivery's commit and then find the row (INSERT ... ON CONFLICT DO NOTHING).
                CREATE TABLE IF NOT EXISTS %2$s (
                    consumer_name text        NOT NULL,
                    message_id    text        NOT NULL,
                    processed_at  timestamptz NOT NULL,
                    CONSTRAINT %3$s PRIMARY KEY (consumer_name, message_id)
                );

                -- The cleaner: records past the retention window, oldest first.
                CREATE INDEX IF NOT EXISTS %4$s ON %2$s (processed_at);
                """.formatted(table.display(), table.quoted(), Identifiers.quote(name + "_pkey"),
                Identifiers.quote(name + "_processed_idx"));
    }
}
