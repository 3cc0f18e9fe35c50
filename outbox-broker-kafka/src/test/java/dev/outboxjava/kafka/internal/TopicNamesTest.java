package dev.outboxjava.kafka.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TopicNamesTest {

    @ParameterizedTest
    @ValueSource(strings = {"orders", "orders.v1", "a_b-c", "x"})
    @DisplayName("names from Kafka's alphabet are valid")
    void valid(String name) {
        assertThat(TopicNames.isValid(name)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", ".", "..", "has space", "slash/name", "ümlaut"})
    @DisplayName("empty names, dot names and foreign characters are not")
    void invalid(String name) {
        assertThat(TopicNames.isValid(name)).isFalse();
    }

    @ParameterizedTest
    @ValueSource(ints = {249, 250})
    @DisplayName("at most 249 characters")
    void length(int length) {
        assertThat(TopicNames.isValid("a".repeat(length))).isEqualTo(length <= 249);
    }
}
