package dev.outboxjava.relayapp;

import dev.outboxjava.postgres.inbox.PostgresInboxConfig;
import dev.outboxjava.worker.HealthConfig;
import java.time.Duration;
import java.util.Optional;

/** Reads the thresholds of the database health signals and the watched inbox table ({@code outbox.health.*}). */
final class HealthReader {

    private HealthReader() {}

    static HealthConfig read(ConfigReader reader) {
        String inboxSetting = reader.string(ConfigKey.HEALTH_INBOX_TABLE);
        Optional<String> inboxTable = inboxSetting.equalsIgnoreCase("none") || inboxSetting.isEmpty()
                ? Optional.empty()
                : Optional.of(inboxSetting);
        inboxTable.ifPresent(table -> reader.check(
                ConfigKey.HEALTH_INBOX_TABLE,
                () -> PostgresInboxConfig.builder().tableName(table).build()));
        Duration maxLag = reader.duration(ConfigKey.HEALTH_MAX_LAG);
        Duration maxXminAge = reader.duration(ConfigKey.HEALTH_MAX_XMIN_AGE);
        return reader.build(
                ConfigKey.HEALTH_MAX_LAG,
                () -> new HealthConfig(maxLag, maxXminAge, inboxTable),
                HealthConfig.ofDefaults());
    }
}
