package dev.outboxjava.core.port;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.OutboxEvent;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("the cause of an error, and the filters by part and by cause")
class ErrorCauseTest {

    @Test
    @DisplayName("keeps the first line, with UUIDs as * and runs of four or more digits as #; a reply code stays")
    void normalizes() {
        assertThat(ErrorCause.of("NO_ROUTE: exchange orders-1207 has no queue bound"))
                .isEqualTo("NO_ROUTE: exchange orders-# has no queue bound");
        assertThat(ErrorCause.of("unroutable (312 NO_ROUTE), offset 20931"))
                .isEqualTo("unroutable (312 NO_ROUTE), offset #");
        assertThat(ErrorCause.of(
                        "Timeout for 3F2504E0-4F89-11D3-9A0C-0305E82C3301 after 30000ms\n\tat Foo.bar(Foo.java:12)"))
                .isEqualTo("Timeout for * after #ms");
        assertThat(ErrorCause.of("windows\r\nline")).isEqualTo("windows\r");
        assertThat(ErrorCause.of("")).isEmpty();
    }

    @Test
    @DisplayName("keeps at most 200 code points, never splitting a surrogate pair")
    void bounded() {
        String cause = ErrorCause.of("a".repeat(199) + "😀😀");
        assertThat(cause.codePointCount(0, cause.length())).isEqualTo(ErrorCause.MAX_LENGTH);
        assertThat(cause).endsWith("😀");
        assertThat(ErrorCause.of("é".repeat(300))).isEqualTo("é".repeat(200));
    }

    private static OutboxEvent deadLetter(String type, String key, String error) {
        OutboxEvent event = OutboxEvent.builder()
                .type(type)
                .destination("orders-eu")
                .key(key)
                .payload("{}".getBytes(StandardCharsets.UTF_8))
                .build();
        return event.withDelivery(
                EventStatus.FAILED,
                1,
                Optional.of(error),
                event.nextAttemptAt(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty());
    }

    @Test
    @DisplayName("a filter matches exactly, or by substring in the same case, and by cause")
    void filters() {
        OutboxEvent event = deadLetter("order.placed", "customer-12", "NO_ROUTE: queue 7001");
        DeadLetterFilter contains = DeadLetterFilter.any().withMatch(DeadLetterFilter.TextMatch.CONTAINS);

        assertThat(DeadLetterFilter.any().withType("order.").matches(event)).isFalse();
        assertThat(contains.withType("order.").matches(event)).isTrue();
        assertThat(contains.withType("ORDER.").matches(event)).isFalse();
        assertThat(contains.withDestination("-eu").withKey("customer-1").matches(event))
                .isTrue();
        assertThat(DeadLetterFilter.any().withCause("NO_ROUTE: queue #").matches(event))
                .isTrue();
        assertThat(DeadLetterFilter.any().withCause("NO_ROUTE: queue 7001").matches(event))
                .isFalse();
        assertThat(contains.withType("order.").withCause("NO_ROUTE: queue #").describe())
                .isEqualTo("type~order., cause=NO_ROUTE: queue #");
    }

    @Test
    @DisplayName("a failure group's filter is its destination and type exactly, and its cause")
    void groupFilter() {
        Instant at = Instant.parse("2024-03-01T10:00:00Z");
        FailureGroup group = new FailureGroup(
                FailureGroup.Kind.DEAD_LETTER,
                "NO_ROUTE: queue #",
                "NO_ROUTE: queue 7001",
                "orders-eu",
                "order.placed",
                1,
                at,
                at);

        assertThat(group.deadLetters().matches(deadLetter("order.placed", "k", "NO_ROUTE: queue 8001")))
                .isTrue();
        assertThat(group.deadLetters().matches(deadLetter("order.placed.v2", "k", "NO_ROUTE: queue 8001")))
                .isFalse();
        assertThat(group.deadLetters().matches(deadLetter("order.placed", "k", "Timeout 8")))
                .isFalse();
    }

    @Test
    @DisplayName("an audit entry keeps copies of what it is given")
    void auditEntryCopies() {
        byte[] payload = {1, 2};
        List<UUID> ids = new java.util.ArrayList<>(List.of(UUID.randomUUID()));
        AuditEntry entry = new AuditEntry(
                1,
                Instant.EPOCH,
                "alice",
                AuditEntry.EDIT_REQUEUE,
                "id=x",
                1,
                Optional.empty(),
                Optional.empty(),
                Map.of(),
                Optional.of(payload),
                Map.of("a", "b"),
                ids);
        payload[0] = 9;
        ids.clear();

        assertThat(entry.newPayload()).hasValueSatisfying(p -> assertThat(p).containsExactly(1, 2));
        assertThat(entry.eventIds()).hasSize(1);
    }
}
