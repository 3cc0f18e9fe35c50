package dev.outboxjava.relayapp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.core.relay.RelayConfig;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.StoreLayout;
import dev.outboxjava.postgres.WakeUpMode;
import dev.outboxjava.relayapp.internal.DataSources;
import dev.outboxjava.worker.Durations;
import dev.outboxjava.worker.InvalidSettingsException;
import dev.outboxjava.worker.OutboxWorkerConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("Worker settings")
class RelayAppConfigTest {

    @Test
    void givenNothingSet_thenEveryDefaultOfTheTableApplies() {
        RelayAppConfig settings = RelayAppConfig.load(ConfigSource.environment(Map.of()));

        assertThat(settings.database()).isEmpty();
        assertThat(settings.broker()).isEmpty();
        assertThat(settings.worker().relay().batchSize()).isEqualTo(1000);
        assertThat(settings.worker().relayThreads()).isEqualTo(1);
        assertThat(settings.worker().sweeper().leaseTimeout()).isEqualTo(Duration.ofMinutes(2));
        assertThat(settings.worker().cleaner().retention()).isEqualTo(Duration.ofDays(7));
        assertThat(settings.http().port()).isEqualTo(8080);
        assertThat(settings.wakeUp()).isEqualTo(WakeUpMode.NOTIFY_AFTER_COMMIT);
        assertThat(settings.table()).isEqualTo("outbox_events");
        assertThat(settings.worker().retryPolicy().unroutableMaxAttempts()).isEqualTo(3);
    }

    @Test
    void givenTheUnroutableBudget_thenTheRetryPolicyHasIt_andAValueBelowOneIsRefusedByName() {
        RelayAppConfig settings =
                RelayAppConfig.load(ConfigSource.environment(Map.of("OUTBOX_RETRY_UNROUTABLE_MAX_ATTEMPTS", "5")));
        assertThat(settings.worker().retryPolicy().unroutableMaxAttempts()).isEqualTo(5);

        assertThatThrownBy(() -> RelayAppConfig.load(
                        ConfigSource.environment(Map.of("OUTBOX_RETRY_UNROUTABLE_MAX_ATTEMPTS", "0"))))
                .hasMessageContaining("OUTBOX_RETRY_UNROUTABLE_MAX_ATTEMPTS");
    }

    @Test
    void givenTheConsole_thenItIsLocalOnlyByDefault_andNeedsTheHttpServer() {
        RelayAppConfig settings =
                RelayAppConfig.load(ConfigSource.environment(Map.of("OUTBOX_CONSOLE_ENABLED", "true")));
        assertThat(settings.console().enabled()).isTrue();
        assertThat(settings.console().allowRemote()).isFalse();
        assertThat(RelayAppConfig.load(ConfigSource.environment(
                                Map.of("OUTBOX_CONSOLE_ENABLED", "true", "OUTBOX_CONSOLE_ALLOW_REMOTE", "true")))
                        .console()
                        .allowRemote())
                .isTrue();

        assertThatThrownBy(() -> RelayAppConfig.load(
                        ConfigSource.environment(Map.of("OUTBOX_CONSOLE_ENABLED", "true", "OUTBOX_HTTP_PORT", "0"))))
                .hasMessageContaining("OUTBOX_CONSOLE_ENABLED")
                .hasMessageContaining("OUTBOX_HTTP_PORT");
    }

    @Test
    void givenEveryKey_thenItsEnvironmentNameIsThePropertyUpperCasedWithUnderscores() {
        assertThat(ConfigKey.DB_URL.env()).isEqualTo("OUTBOX_DB_URL");
        assertThat(ConfigKey.KAFKA_BOOTSTRAP_SERVERS.env()).isEqualTo("OUTBOX_KAFKA_BOOTSTRAP_SERVERS");
        assertThat(ConfigKey.RELAY_BATCH_SIZE.property()).isEqualTo("outbox.relay.batch.size");
        assertThat(Arrays.stream(ConfigKey.values())).allSatisfy(key -> {
            assertThat(key.property()).startsWith(ConfigKey.PROPERTY_PREFIX).matches("[a-z.]+");
            assertThat(ConfigKey.byEnv(key.env())).contains(key);
            assertThat(ConfigKey.byProperty(key.property())).contains(key);
            assertThat(key.description()).isNotBlank();
        });
    }

    @Test
    void givenEnvironmentVariables_thenTheyAreReadThroughTheTable() {
        RelayAppConfig settings = RelayAppConfig.load(ConfigSource.environment(Map.of(
                "OUTBOX_DB_URL", "jdbc:postgresql://db:5432/app",
                "OUTBOX_BROKER", "kafka",
                "OUTBOX_KAFKA_BOOTSTRAP_SERVERS", "kafka:9092",
                "OUTBOX_RELAY_BATCH_SIZE", "250",
                "OUTBOX_RELAY_THREADS", "3",
                "OUTBOX_COMPLETION_MODE", "delete_on_publish",
                "PATH", "/usr/bin")));

        assertThat(settings.requireDatabase().url()).isEqualTo("jdbc:postgresql://db:5432/app");
        assertThat(settings.requireDatabase().completionMode()).isEqualTo(CompletionMode.DELETE_ON_PUBLISH);
        assertThat(settings.requireBroker().kind()).isEqualTo(BrokerKind.KAFKA);
        assertThat(settings.requireBroker().kafkaBootstrapServers()).isEqualTo("kafka:9092");
        assertThat(settings.worker().relay().batchSize()).isEqualTo(250);
        assertThat(settings.worker().relayThreads()).isEqualTo(3);
    }

    @Test
    void givenNoBatchSize_thenTheOrderingChoosesIt_andASetOneIsKept() {
        assertThat(RelayAppConfig.load(ConfigSource.environment(Map.of()))
                        .worker()
                        .relay()
                        .batchSize())
                .isEqualTo(RelayConfig.DEFAULT_BATCH_SIZE);
        assertThat(RelayAppConfig.load(ConfigSource.environment(Map.of("OUTBOX_ORDERING", "per_key")))
                        .worker()
                        .relay()
                        .batchSize())
                .isEqualTo(RelayConfig.DEFAULT_PER_KEY_BATCH_SIZE);
        assertThat(RelayAppConfig.load(ConfigSource.environment(
                                Map.of("OUTBOX_ORDERING", "per_key", "OUTBOX_RELAY_BATCH_SIZE", "1000")))
                        .worker()
                        .relay()
                        .batchSize())
                .isEqualTo(1000);
        assertThatThrownBy(() -> RelayAppConfig.load(ConfigSource.environment(
                        Map.of("OUTBOX_ORDERING", "per_key", "OUTBOX_RELAY_BATCH_SIZE", "many"))))
                .hasMessageContaining("OUTBOX_RELAY_BATCH_SIZE")
                .hasMessageContaining("must be a whole number, was 'many'");
    }

    @Test
    void givenAPropertiesFile_andEnvironmentVariables_thenTheEnvironmentWinsKeyByKey(@TempDir Path dir)
            throws IOException {
        Path file = dir.resolve("outbox.properties");
        Files.writeString(
                file,
                "outbox.db.url=jdbc:postgresql://file:5432/app\noutbox.relay.batch.size=100\n"
                        + "outbox.sweeper.lease.timeout=5m\nunrelated.key=1\n");
        ConfigSource source = ConfigSource.environment(Map.of("OUTBOX_RELAY_BATCH_SIZE", "200"))
                .overriding(ConfigSource.file(file));

        RelayAppConfig settings = RelayAppConfig.load(source);

        assertThat(settings.requireDatabase().url()).isEqualTo("jdbc:postgresql://file:5432/app");
        assertThat(settings.worker().relay().batchSize()).isEqualTo(200);
        assertThat(settings.worker().sweeper().leaseTimeout()).isEqualTo(Duration.ofMinutes(5));
    }

    @Test
    void givenAnUnknownEnvironmentVariable_thenStartingFailsNamingIt_butTestkitVariablesAreIgnored() {
        assertThatThrownBy(() -> RelayAppConfig.load(ConfigSource.environment(
                        Map.of("OUTBOX_RELAY_BATCHSIZE", "10", "OUTBOX_TEST_POSTGRES_URL", "jdbc:postgresql://x/y"))))
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("OUTBOX_RELAY_BATCHSIZE: unknown setting")
                .hasMessageNotContaining("OUTBOX_TEST_POSTGRES_URL");
    }

    @Test
    void givenAnUnknownProperty_thenStartingFailsNamingIt() {
        assertThatThrownBy(() -> RelayAppConfig.load(ConfigSource.map(Map.of("outbox.relay.thread", "2"))))
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("outbox.relay.thread: unknown setting");
    }

    @Test
    void givenSeveralInvalidValues_thenEveryProblemIsReportedAtOnce_eachNamingItsKey() {
        InvalidSettingsException failure = (InvalidSettingsException)
                org.assertj.core.api.Assertions.catchThrowable(() -> RelayAppConfig.load(ConfigSource.map(Map.of(
                        "outbox.relay.batch.size", "lots",
                        "outbox.relay.threads", "0",
                        "outbox.relay.publish.timeout", "soon",
                        "outbox.broker", "activemq",
                        "outbox.cleaner.enabled", "yes",
                        "outbox.table", "orders; drop table orders",
                        "outbox.http.port", "70000"))));

        assertThat(failure.problems())
                .extracting(InvalidSettingsException.Problem::key)
                .containsExactlyInAnyOrder(
                        "outbox.relay.batch.size (OUTBOX_RELAY_BATCH_SIZE)",
                        "outbox.relay.threads (OUTBOX_RELAY_THREADS)",
                        "outbox.relay.publish.timeout (OUTBOX_RELAY_PUBLISH_TIMEOUT)",
                        "outbox.broker (OUTBOX_BROKER)",
                        "outbox.cleaner.enabled (OUTBOX_CLEANER_ENABLED)",
                        "outbox.table (OUTBOX_TABLE)",
                        "outbox.http.port (OUTBOX_HTTP_PORT)");
        assertThat(failure.getMessage())
                .contains("7 problems")
                .contains("'lots'")
                .contains("kafka, rabbitmq");
    }

    @Test
    void givenALeaseTimeoutNotAboveThePublishTimeout_thenTheCrossCheckFails() {
        assertThatThrownBy(() -> RelayAppConfig.load(ConfigSource.map(
                        Map.of("outbox.relay.publish.timeout", "1m", "outbox.sweeper.lease.timeout", "1m"))))
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("outbox.sweeper.lease.timeout (OUTBOX_SWEEPER_LEASE_TIMEOUT): must be longer "
                        + "than outbox.relay.publish.timeout (1m)");
    }

    @Test
    void givenValuesTheWorkerBuilderRefuses_thenEachProblemNamesTheKeyNotTheBuilderMethod() {
        assertThatThrownBy(() -> RelayAppConfig.load(ConfigSource.map(Map.of(
                        "outbox.backoff.initial", "2s",
                        "outbox.backoff.max", "1s",
                        "outbox.shutdown.timeout", "PT-1S"))))
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining(
                        "outbox.backoff.max (OUTBOX_BACKOFF_MAX): must be at least outbox.backoff.initial (2s), was 1s")
                .hasMessageContaining("outbox.shutdown.timeout (OUTBOX_SHUTDOWN_TIMEOUT): must not be negative")
                .hasMessageNotContaining("OutboxWorkerConfig.builder()");
    }

    @Test
    void givenKafkaWithoutBootstrapServers_thenTheMissingKeyIsNamed() {
        assertThatThrownBy(() -> RelayAppConfig.load(ConfigSource.map(Map.of("outbox.broker", "kafka"))))
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("outbox.kafka.bootstrap.servers (OUTBOX_KAFKA_BOOTSTRAP_SERVERS): is required");
    }

    @Test
    void givenNoDatabaseUrl_whenACommandNeedsTheDatabase_thenTheErrorNamesTheKey() {
        RelayAppConfig settings = RelayAppConfig.load(ConfigSource.map(Map.of()));

        assertThatThrownBy(settings::requireDatabase)
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("outbox.db.url (OUTBOX_DB_URL): is required");
        assertThatThrownBy(settings::requireBroker)
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("outbox.broker (OUTBOX_BROKER): is required");
    }

    @Test
    void givenAMissingConfigFile_thenTheErrorSaysWhichFile(@TempDir Path dir) {
        assertThatThrownBy(() -> ConfigSource.file(dir.resolve("absent.properties")))
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("absent.properties does not exist");
    }

    @Test
    void givenDurationsAsOperatorsWriteThem_thenTheyParse_andBadOnesExplainTheFormat() {
        assertThat(Durations.parse("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(Durations.parse("30s")).isEqualTo(Duration.ofSeconds(30));
        assertThat(Durations.parse("2m")).isEqualTo(Duration.ofMinutes(2));
        assertThat(Durations.parse("7d")).isEqualTo(Duration.ofDays(7));
        assertThat(Durations.parse("PT1H")).isEqualTo(Duration.ofHours(1));
        assertThat(Durations.format(Duration.ofSeconds(90))).isEqualTo("90s");
        assertThatThrownBy(() -> Durations.parse("5 minutes")).hasMessageContaining("500ms, 30s, 2m, 1h, 7d");
    }

    @Test
    void givenDurationsTooLongForTheLoops_thenEachIsASettingsErrorNamingItsKey() {
        InvalidSettingsException failure = (InvalidSettingsException)
                org.assertj.core.api.Assertions.catchThrowable(() -> RelayAppConfig.load(ConfigSource.map(Map.of(
                        "outbox.relay.poll.interval", "9999999999999999d", // overflows Duration itself
                        "outbox.cleaner.retention", "106751991167301d", // a Duration, but not in nanoseconds
                        "outbox.backoff.max", "PT9999999999999999H", // ISO-8601, overflows Duration
                        "outbox.shutdown.timeout", "99999999999999999999s")))); // not even a long

        assertThat(failure.problems())
                .extracting(InvalidSettingsException.Problem::key)
                .containsExactlyInAnyOrder(
                        "outbox.relay.poll.interval (OUTBOX_RELAY_POLL_INTERVAL)",
                        "outbox.cleaner.retention (OUTBOX_CLEANER_RETENTION)",
                        "outbox.backoff.max (OUTBOX_BACKOFF_MAX)",
                        "outbox.shutdown.timeout (OUTBOX_SHUTDOWN_TIMEOUT)");
        assertThat(failure.problems())
                .extracting(InvalidSettingsException.Problem::reason)
                .allSatisfy(reason -> assertThat(reason).contains("is too long; a duration must be at most 106751d"));
        assertThat(RelayAppConfig.load(ConfigSource.map(Map.of("outbox.cleaner.retention", "106751d")))
                        .worker()
                        .cleaner()
                        .retention())
                .isEqualTo(Duration.ofDays(106_751));
    }

    @Test
    void givenTheWorkerConfigBuilder_thenItValidatesEveryValueAtOnce() {
        assertThatThrownBy(() -> OutboxWorkerConfig.builder()
                        .relayThreads(0)
                        .pollInterval(Duration.ZERO)
                        .backoffInitial(Duration.ofSeconds(10))
                        .backoffMax(Duration.ofSeconds(1))
                        .build())
                .isInstanceOf(InvalidSettingsException.class)
                .satisfies(e ->
                        assertThat(((InvalidSettingsException) e).problems()).hasSize(3));
    }

    @Test
    void givenMoreRelayThreadsThanThePoolHolds_thenThePoolSizeIsRefusedNamingBothSettings() {
        assertThatThrownBy(() -> RelayAppConfig.load(
                        ConfigSource.map(Map.of("outbox.relay.threads", "4", "outbox.db.pool.size", "4"))))
                .hasMessageContaining("outbox.db.pool.size (OUTBOX_DB_POOL_SIZE): must be at least 5")
                .hasMessageContaining("outbox.relay.threads=4");
        assertThat(RelayAppConfig.load(ConfigSource.map(Map.of(
                                "outbox.relay.threads",
                                "4",
                                "outbox.db.pool.size",
                                "4",
                                "outbox.relay.wakeup",
                                "none")))
                        .worker()
                        .relayThreads())
                .isEqualTo(4);
    }

    @Test
    @DisplayName("given each wake-up spelling, then it selects its mode; the older ones with a warning naming the key")
    void wakeUpSpellings() {
        Map<String, WakeUpMode> current = Map.of(
                "notify_after_commit", WakeUpMode.NOTIFY_AFTER_COMMIT,
                "trigger_notify", WakeUpMode.TRIGGER_NOTIFY,
                "none", WakeUpMode.NONE);
        current.forEach((value, mode) -> {
            RelayAppConfig settings =
                    RelayAppConfig.load(ConfigSource.environment(Map.of("OUTBOX_RELAY_WAKEUP", value)));
            assertThat(settings.wakeUp()).as(value).isEqualTo(mode);
            assertThat(settings.warnings()).as(value).isEmpty();
        });

        RelayAppConfig notify = RelayAppConfig.load(ConfigSource.environment(Map.of("OUTBOX_RELAY_WAKEUP", "notify")));
        RelayAppConfig polling = RelayAppConfig.load(ConfigSource.map(Map.of("outbox.relay.wakeup", "POLLING")));

        assertThat(notify.wakeUp()).isEqualTo(WakeUpMode.NOTIFY_AFTER_COMMIT);
        assertThat(notify.warnings())
                .singleElement()
                .asString()
                .contains("OUTBOX_RELAY_WAKEUP", "'notify_after_commit'");
        assertThat(polling.wakeUp()).isEqualTo(WakeUpMode.NONE);
        assertThat(polling.warnings()).singleElement().asString().contains("outbox.relay.wakeup", "'none'");
        assertThatThrownBy(() -> RelayAppConfig.load(ConfigSource.environment(Map.of("OUTBOX_RELAY_WAKEUP", "listen"))))
                .hasMessageContaining("must be one of notify_after_commit, trigger_notify, none, was 'listen'");
    }

    @Test
    void givenPerKeyOrdering_thenTheRelaySettingsCarryIt_andABadValueIsNamed() {
        RelayAppConfig settings = RelayAppConfig.load(
                ConfigSource.environment(Map.of("OUTBOX_ORDERING", "per_key", "OUTBOX_AFTER_DEAD_LETTER", "continue")));

        assertThat(settings.worker().relay().ordering())
                .isEqualTo(dev.outboxjava.core.Ordering.perKey(dev.outboxjava.core.Ordering.AfterDeadLetter.CONTINUE));
        assertThat(RelayAppConfig.load(ConfigSource.map(Map.of()))
                        .worker()
                        .relay()
                        .ordering()
                        .isPerKey())
                .isFalse();
        assertThatThrownBy(() -> RelayAppConfig.load(ConfigSource.map(Map.of("outbox.ordering", "global"))))
                .hasMessageContaining("outbox.ordering (OUTBOX_ORDERING): must be one of none, per_key");
    }

    @Test
    void givenTheStoreLayout_thenTheStoreIsBuiltWithIt_andAnUnknownLayoutIsRefusedByName() {
        RelayAppConfig defaults =
                RelayAppConfig.load(ConfigSource.map(Map.of("outbox.db.url", "jdbc:postgresql://db:5432/app")));
        assertThat(defaults.layout()).isEqualTo(StoreLayout.APPEND_LOG);
        assertThat(defaults.requireDatabase().layout()).isEqualTo(StoreLayout.APPEND_LOG);

        RelayAppConfig inPlace = RelayAppConfig.load(ConfigSource.environment(
                Map.of("OUTBOX_DB_URL", "jdbc:postgresql://db:5432/app", "OUTBOX_STORE_LAYOUT", "IN_PLACE")));
        assertThat(inPlace.layout()).isEqualTo(StoreLayout.IN_PLACE);
        assertThat(DataSources.storeConfig(inPlace.requireDatabase(), Ordering.none(), WakeUpMode.NONE)
                        .layout())
                .isEqualTo(StoreLayout.IN_PLACE);
        assertThat(RelayAppConfig.load(ConfigSource.map(Map.of("outbox.store.layout", "append_log")))
                        .layout())
                .as("without a database URL, for the schema command")
                .isEqualTo(StoreLayout.APPEND_LOG);

        assertThatThrownBy(() -> RelayAppConfig.load(ConfigSource.map(Map.of("outbox.store.layout", "append-only"))))
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("outbox.store.layout")
                .hasMessageContaining("must be one of in_place, append_log, was 'append-only'");
    }

    @Test
    void givenATableNameTooLongForTheAppendOnlyLayout_thenItIsRefusedThere_butTakenInPlace_likeTheStoreBuilder() {
        String table = "billing." + "t".repeat(PostgresOutboxConfig.MAX_APPEND_LOG_TABLE_LENGTH + 3);
        RelayAppConfig inPlace = RelayAppConfig.load(ConfigSource.map(Map.of(
                "outbox.db.url", "jdbc:postgresql://db:5432/app",
                "outbox.table", table,
                "outbox.store.layout", "in_place")));
        assertThat(inPlace.requireDatabase().table()).isEqualTo(table);
        assertThat(DataSources.storeConfig(inPlace.requireDatabase(), Ordering.none(), WakeUpMode.NONE)
                        .tableName())
                .as("the store builder takes what the settings took")
                .isEqualTo(table);

        assertThatThrownBy(() -> RelayAppConfig.load(ConfigSource.map(Map.of(
                        "outbox.db.url", "jdbc:postgresql://db:5432/app",
                        "outbox.table", table,
                        "outbox.store.layout", "append_log"))))
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("outbox.table")
                .hasMessageContaining("the append-only layout takes at most 42");
        assertThatThrownBy(() -> RelayAppConfig.load(
                        ConfigSource.map(Map.of("outbox.table", "t".repeat(49), "outbox.store.layout", "in_place"))))
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("outbox.table")
                .hasMessageContaining("over the maximum of 48");
    }
}
