package dev.outboxjava.relayapp;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The settings table")
class ConfigKeyTest {

    @Test
    @DisplayName("has no key that is also the parent of another, so the settings nest as YAML and bind to objects")
    void noKeyIsAParent() {
        assertThat(parentsAmong(Arrays.stream(ConfigKey.values())
                        .map(ConfigKey::property)
                        .toList()))
                .isEmpty();
    }

    @Test
    @DisplayName("reports a key that is the parent of another")
    void reportsAParent() {
        assertThat(parentsAmong(List.of("outbox.ordering", "outbox.ordering.after.dead.letter", "outbox.table")))
                .containsExactly("outbox.ordering");
    }

    private static List<String> parentsAmong(List<String> keys) {
        return keys.stream()
                .filter(key -> keys.stream().anyMatch(other -> other.startsWith(key + ".")))
                .toList();
    }
}
