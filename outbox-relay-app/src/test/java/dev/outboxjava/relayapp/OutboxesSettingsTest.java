package dev.outboxjava.relayapp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxjava.worker.InvalidSettingsException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The settings of a worker of many outboxes")
class OutboxesSettingsTest {

    private static RelayAppConfig load(Map<String, String> env) {
        return RelayAppConfig.load(ConfigSource.environment(env));
    }

    private static List<String> problemKeys(Map<String, String> env) {
        try {
            load(env);
        } catch (InvalidSettingsException e) {
            return e.problems().stream()
                    .map(InvalidSettingsException.Problem::key)
                    .toList();
        }
        throw new AssertionError("expected the settings to be refused: " + env);
    }

    @Test
    @DisplayName("given neither a list nor a pattern, then the worker relays the one table of outbox.table")
    void oneTableByDefault() {
        assertThat(load(Map.of()).outboxes()).isEmpty();
    }

    @Test
    @DisplayName("given OUTBOX_TABLES, then each listed table is an outbox, in the order given")
    void listedTables() {
        OutboxesConfig outboxes = load(Map.of("OUTBOX_TABLES", "tenant_a.outbox_events, tenant_b.outbox_events,orders"))
                .outboxes()
                .orElseThrow();

        assertThat(outboxes.tables()).containsExactly("tenant_a.outbox_events", "tenant_b.outbox_events", "orders");
        assertThat(outboxes.isDiscovered()).isFalse();
    }

    @Test
    @DisplayName(
            "given OUTBOX_DISCOVERY_SCHEMA_PATTERN, then every schema matching it that holds outbox.table is looked up"
                    + " on the discovery interval, and idle polling is bounded by its own setting")
    void discoveryRule() {
        OutboxesConfig outboxes = load(Map.of(
                        "OUTBOX_DISCOVERY_SCHEMA_PATTERN", "tenant_.*",
                        "OUTBOX_DISCOVERY_INTERVAL", "5s",
                        "OUTBOX_RELAY_MAX_IDLE_POLL_INTERVAL", "3s"))
                .outboxes()
                .orElseThrow();

        assertThat(outboxes.isDiscovered()).isTrue();
        assertThat(outboxes.schemaPattern().orElseThrow().pattern()).isEqualTo("tenant_.*");
        assertThat(outboxes.table()).isEqualTo("outbox_events");
        assertThat(outboxes.multi().discoveryInterval()).isEqualTo(Duration.ofSeconds(5));
        assertThat(outboxes.multi().maxIdlePollInterval()).isEqualTo(Duration.ofSeconds(3));
    }

    @Test
    @DisplayName("given both a list and a pattern, then the start is refused naming the pattern and the list")
    void listAndPatternTogether() {
        assertThatThrownBy(() ->
                        load(Map.of("OUTBOX_TABLES", "a.outbox_events", "OUTBOX_DISCOVERY_SCHEMA_PATTERN", "t_.*")))
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("OUTBOX_DISCOVERY_SCHEMA_PATTERN")
                .hasMessageContaining("OUTBOX_TABLES");
    }

    @Test
    @DisplayName("given a pattern and a qualified outbox.table, then outbox.table is refused: the schemas come from"
            + " the pattern")
    void patternWithQualifiedTable() {
        assertThat(problemKeys(
                        Map.of("OUTBOX_DISCOVERY_SCHEMA_PATTERN", "t_.*", "OUTBOX_TABLE", "billing.outbox_events")))
                .containsExactly(ConfigKey.TABLE.displayName());
    }

    @Test
    @DisplayName("given a pattern that is no regular expression, then it is refused by name")
    void badPattern() {
        assertThatThrownBy(() -> load(Map.of("OUTBOX_DISCOVERY_SCHEMA_PATTERN", "tenant_(")))
                .hasMessageContaining("OUTBOX_DISCOVERY_SCHEMA_PATTERN")
                .hasMessageContaining("regular expression");
    }

    @Test
    @DisplayName("given a list with an empty entry, a table twice and a name the store refuses, then each is a"
            + " problem of OUTBOX_TABLES")
    void badLists() {
        assertThat(problemKeys(Map.of("OUTBOX_TABLES", "a.outbox_events,,public.orders,orders,Bad-Name")))
                .containsOnly(ConfigKey.TABLES.displayName())
                .hasSize(3);
    }

    @Test
    @DisplayName("given a discovery interval of zero, then it is refused by name")
    void zeroDiscoveryInterval() {
        assertThat(problemKeys(Map.of("OUTBOX_DISCOVERY_SCHEMA_PATTERN", "t_.*", "OUTBOX_DISCOVERY_INTERVAL", "0s")))
                .containsExactly(ConfigKey.DISCOVERY_INTERVAL.displayName());
    }

    @Test
    @DisplayName("given many outboxes and the web console, then the console is enabled: it serves every outbox")
    void consoleServesManyOutboxes() {
        RelayAppConfig listed = load(Map.of("OUTBOX_TABLES", "a.outbox_events", "OUTBOX_CONSOLE_ENABLED", "true"));
        RelayAppConfig discovered =
                load(Map.of("OUTBOX_DISCOVERY_SCHEMA_PATTERN", "tenant_.*", "OUTBOX_CONSOLE_ENABLED", "true"));

        assertThat(listed.console().enabled()).isTrue();
        assertThat(listed.outboxes()).isPresent();
        assertThat(discovered.console().enabled()).isTrue();
        assertThat(discovered.outboxes()).isPresent();
    }
}
