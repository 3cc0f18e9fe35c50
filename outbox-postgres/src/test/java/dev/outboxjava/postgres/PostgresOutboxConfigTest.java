package dev.outboxjava.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxjava.core.InvalidConfigurationException;
import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.port.CompletionMode;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PostgresOutboxConfigTest {

    @Test
    @DisplayName("the defaults are the documented ones")
    void defaults() {
        PostgresOutboxConfig config = PostgresOutboxConfig.ofDefaults();
        assertThat(config.tableName()).isEqualTo("outbox_events").isEqualTo(PostgresOutboxConfig.DEFAULT_TABLE_NAME);
        assertThat(config.schemaName()).isEmpty();
        assertThat(config.notifyChannel()).isEqualTo("outbox_events");
        assertThat(config.wakeUpMode()).isEqualTo(WakeUpMode.NOTIFY_AFTER_COMMIT);
        assertThat(config.completionMode()).isEqualTo(CompletionMode.KEEP_SENT);
        assertThat(config.maximumPoolSize()).isEqualTo(PostgresOutboxConfig.DEFAULT_MAXIMUM_POOL_SIZE);
        assertThat(config.notifyMinimumInterval()).isEqualTo(Duration.ofMillis(5));
    }

    @Test
    @DisplayName("a schema-qualified table name is accepted and the channel is derived from both parts")
    void qualified() {
        PostgresOutboxConfig config = PostgresOutboxConfig.builder()
                .tableName("billing.outbox_events")
                .build();
        assertThat(config.schemaName()).contains("billing");
        assertThat(config.tableName()).isEqualTo("billing.outbox_events");
        assertThat(config.notifyChannel()).isEqualTo("billing_outbox_events");
    }

    @Test
    @DisplayName("an explicit channel wins over the derived one")
    void explicitChannel() {
        assertThat(PostgresOutboxConfig.builder()
                        .notifyChannel("wake_relay")
                        .build()
                        .notifyChannel())
                .isEqualTo("wake_relay");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "outbox; drop table orders",
                "",
                "Outbox",
                "outbox events",
                "\"outbox\"",
                "a.b.c",
                "1outbox",
                "outbox-events",
                "outbox'--",
                ".outbox",
                "outbox.",
                "schema.1table",
                "a_table_name_that_is_far_too_long_for_its_derived_index_names_x"
            })
    @DisplayName("a table name that is not a plain lower-case identifier is refused, naming the setting")
    void refusesTableName(String name) {
        assertThatThrownBy(() -> PostgresOutboxConfig.builder()
                        .tableName(name)
                        .layout(StoreLayout.IN_PLACE)
                        .build())
                .isInstanceOfSatisfying(
                        InvalidConfigurationException.class,
                        e -> assertThat(e.setting()).isEqualTo("tableName"))
                .hasMessageContaining("tableName");
    }

    @ParameterizedTest
    @ValueSource(strings = {"wake'); drop table x; --", "Wake", "wake.up", ""})
    @DisplayName("a channel name that is not a plain lower-case identifier is refused, naming the setting")
    void refusesChannel(String name) {
        assertThatThrownBy(
                        () -> PostgresOutboxConfig.builder().notifyChannel(name).build())
                .isInstanceOfSatisfying(
                        InvalidConfigurationException.class,
                        e -> assertThat(e.setting()).isEqualTo("notifyChannel"));
    }

    @Test
    @DisplayName("the layout is the append-only one unless the in-place one is chosen")
    void layout() {
        assertThat(PostgresOutboxConfig.ofDefaults().layout())
                .isEqualTo(StoreLayout.APPEND_LOG)
                .isEqualTo(PostgresOutboxConfig.DEFAULT_LAYOUT);
        PostgresOutboxConfig inPlace =
                PostgresOutboxConfig.builder().layout(StoreLayout.IN_PLACE).build();
        assertThat(inPlace.layout()).isEqualTo(StoreLayout.IN_PLACE);
        assertThat(inPlace.toBuilder().build().layout()).isEqualTo(StoreLayout.IN_PLACE);
        assertThat(PostgresOutboxConfig.builder()
                        .layout(StoreLayout.APPEND_LOG)
                        .ordering(Ordering.perKey(Ordering.AfterDeadLetter.HOLD_KEY))
                        .build()
                        .ordering()
                        .isPerKey())
                .isTrue();
    }

    @Test
    @DisplayName("a pool size below one is refused")
    void refusesPoolSize() {
        assertThatThrownBy(
                        () -> PostgresOutboxConfig.builder().maximumPoolSize(0).build())
                .isInstanceOfSatisfying(
                        InvalidConfigurationException.class,
                        e -> assertThat(e.setting()).isEqualTo("maximumPoolSize"));
    }

    @Test
    @DisplayName("a negative notify interval is refused, naming the setting; zero is allowed")
    void refusesNegativeNotifyInterval() {
        assertThatThrownBy(() -> PostgresOutboxConfig.builder()
                        .notifyMinimumInterval(Duration.ofMillis(-1))
                        .build())
                .isInstanceOfSatisfying(
                        InvalidConfigurationException.class,
                        e -> assertThat(e.setting()).isEqualTo("notifyMinimumInterval"));
        assertThat(PostgresOutboxConfig.builder()
                        .notifyMinimumInterval(Duration.ZERO)
                        .build()
                        .notifyMinimumInterval())
                .isZero();
    }

    @Test
    @DisplayName("the transactional helper's notifier takes the configured minimum interval")
    void transactionalNotifierUsesTheInterval() {
        PostgresOutboxConfig config = PostgresOutboxConfig.builder()
                .notifyMinimumInterval(Duration.ofMillis(20))
                .build();
        // no connection is taken: the notifier starts its thread at the first signal
        try (TransactionalOutbox outbox = TransactionalOutbox.create(new ForwardingDataSource(null) {}, config)) {
            assertThat(outbox.notifier())
                    .hasValueSatisfying(
                            notifier -> assertThat(notifier.minimumInterval()).isEqualTo(Duration.ofMillis(20)));
        }
    }

    @Test
    @DisplayName("toBuilder keeps every setting")
    void toBuilder() {
        PostgresOutboxConfig config = PostgresOutboxConfig.builder()
                .tableName("s.t")
                .notifyChannel("c")
                .wakeUpMode(WakeUpMode.NONE)
                .completionMode(CompletionMode.DELETE_ON_PUBLISH)
                .maximumPoolSize(2)
                .notifyMinimumInterval(Duration.ofMillis(50))
                .build();
        assertThat(config.toBuilder().build()).hasToString(config.toString());
    }

    @Test
    @DisplayName("the append-only layout takes table names of at most 42 characters, so that no derived name is cut")
    void appendLogTableNameLength() {
        String longest = "t".repeat(PostgresOutboxConfig.MAX_APPEND_LOG_TABLE_LENGTH);
        assertThat(PostgresOutboxConfig.builder()
                        .tableName("billing." + longest)
                        .layout(StoreLayout.APPEND_LOG)
                        .build()
                        .tableName())
                .isEqualTo("billing." + longest);
        assertThat(PostgresOutboxConfig.builder()
                        .tableName(longest + "t")
                        .layout(StoreLayout.IN_PLACE)
                        .build()
                        .tableName())
                .as("the in-place layout's limit is longer")
                .isEqualTo(longest + "t");

        assertThatThrownBy(() -> PostgresOutboxConfig.builder()
                        .tableName(longest + "t")
                        .layout(StoreLayout.APPEND_LOG)
                        .build())
                .isInstanceOfSatisfying(
                        InvalidConfigurationException.class,
                        e -> assertThat(e.setting()).isEqualTo("tableName"))
                .hasMessageContaining("at most 42");
    }
}
