package dev.outboxjava.core;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ReservedHeadersTest {

    @ParameterizedTest(name = "{0} is reserved")
    @ValueSource(
            strings = {
                "ce_id",
                "CE_TYPE",
                "ce-source",
                "cloudEvents_id",
                "cloudEvents_type",
                "cloudEvents_source",
                "cloudevents:id",
                "CLOUDEVENTS_SPECVERSION",
                "cloudEvents-time",
                "content-type",
                "Content_Type"
            })
    void reserved(String name) {
        assertThat(ReservedHeaders.isReserved(name)).isTrue();
    }

    @ParameterizedTest(name = "{0} is free")
    @ValueSource(strings = {"tenant", "traceparent", "cex", "cloudEventsId", "cloud_events_id", "content", "ce"})
    void free(String name) {
        assertThat(ReservedHeaders.isReserved(name)).isFalse();
    }
}
