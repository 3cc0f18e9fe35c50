package dev.outboxjava.testkit;

import dev.outboxjava.core.OutboxEvent;
import java.nio.charset.StandardCharsets;
import java.time.Clock;

/** Small event factory for the testkit's own tests. */
final class TestEvents {

    private TestEvents() {}

    static OutboxEvent event(String type, String key) {
        return event(type, key, "{\"type\":\"" + type + "\"}");
    }

    static OutboxEvent event(String type, String key, String payload) {
        return event(Clock.systemUTC(), type, key, payload);
    }

    static OutboxEvent event(Clock clock, String type, String key, String payload) {
        OutboxEvent.Builder builder = OutboxEvent.builder()
                .clock(clock)
                .type(type)
                .destination("orders")
                .payload(payload.getBytes(StandardCharsets.UTF_8));
        if (key != null) {
            builder.key(key);
        }
        return builder.build();
    }
}
