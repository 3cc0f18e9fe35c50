package dev.outboxjava.core.port;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.OutboxEvent;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The per-key hold-back rule of a batch")
class KeyHoldBackTest {

    private static OutboxEvent event(String key) {
        OutboxEvent.Builder builder =
                OutboxEvent.builder().type("t").source("/s").destination("d").payload(new byte[] {1});
        return key == null ? builder.build() : builder.key(key).build();
    }

    private static boolean heldBack(PublishOutcome outcome) {
        return outcome instanceof PublishOutcome.Failed failed && failed.heldBack();
    }

    @Test
    @DisplayName(
            "any failure of a key (retryable, not retryable, unroutable) holds back the later events of that key only")
    void anyFailureHoldsBackLaterEventsOfItsKey() {
        List<OutboxEvent> batch = List.of(
                event("a"),
                event("a"),
                event("b"),
                event("a"),
                event(null),
                event("c"),
                event("c"),
                event("d"),
                event("d"));
        List<PublishOutcome> outcomes = List.of(
                PublishOutcome.published(batch.get(0).id()),
                PublishOutcome.failed(batch.get(1).id(), "too large", false),
                PublishOutcome.published(batch.get(2).id()),
                PublishOutcome.published(batch.get(3).id()),
                PublishOutcome.failed(batch.get(4).id(), "timeout", true),
                PublishOutcome.unroutable(batch.get(5).id(), "no such topic"),
                PublishOutcome.failed(batch.get(6).id(), "too large", false),
                PublishOutcome.failed(batch.get(7).id(), "not acknowledged", true),
                PublishOutcome.published(batch.get(8).id()));

        List<PublishOutcome> applied = KeyHoldBack.of(batch).apply(outcomes);

        assertThat(applied.get(0)).isEqualTo(outcomes.get(0));
        assertThat(applied.get(1)).isEqualTo(outcomes.get(1));
        assertThat(applied.get(2)).as("another key").isEqualTo(outcomes.get(2));
        assertThat(applied.get(3))
                .as("acknowledged, but after a failure of its key")
                .matches(KeyHoldBackTest::heldBack)
                .isInstanceOfSatisfying(PublishOutcome.Failed.class, failed -> {
                    assertThat(failed.retryable()).isTrue();
                    assertThat(failed.unroutable()).isFalse();
                    assertThat(failed.reason())
                            .contains("held back", batch.get(1).id().toString(), "'a'", "(too large)");
                });
        assertThat(applied.get(4)).as("no key: never held back").isEqualTo(outcomes.get(4));
        assertThat(applied.get(5)).isEqualTo(outcomes.get(5));
        assertThat(applied.get(6))
                .as("its own failure gives way to the hold-back")
                .matches(KeyHoldBackTest::heldBack);
        assertThat(applied.get(7)).isEqualTo(outcomes.get(7));
        assertThat(applied.get(8)).matches(KeyHoldBackTest::heldBack);
        assertThat(applied)
                .extracting(PublishOutcome::eventId)
                .containsExactlyElementsOf(batch.stream().map(OutboxEvent::id).toList());
    }

    @Test
    @DisplayName("a failure recorded out of order holds back only the events after it, not those before")
    void onlyLaterPositionsAreHeldBack() {
        List<OutboxEvent> batch = List.of(event("k"), event("k"), event("k"));
        KeyHoldBack rule = KeyHoldBack.of(batch);

        rule.failed(1, "nack");

        assertThat(rule.check(0)).isEmpty();
        assertThat(rule.check(1)).as("the failed event itself").isEmpty();
        assertThat(rule.check(2))
                .get()
                .matches(KeyHoldBackTest::heldBack)
                .isInstanceOfSatisfying(
                        PublishOutcome.Failed.class,
                        failed -> assertThat(failed.reason()).contains("(nack)"));
        rule.failed(0, "timeout");
        assertThat(rule.check(1)).get().matches(KeyHoldBackTest::heldBack);
    }

    @Test
    @DisplayName("failures recorded before (events never handed over) count when the outcomes are applied")
    void recordedFailuresCount() {
        List<OutboxEvent> batch = List.of(event("k"), event("k"));
        KeyHoldBack rule = KeyHoldBack.of(batch);
        rule.failed(0, "timeout");

        List<PublishOutcome> applied = rule.apply(List.of(
                PublishOutcome.published(batch.get(0).id()),
                PublishOutcome.published(batch.get(1).id())));

        assertThat(applied.get(1)).matches(KeyHoldBackTest::heldBack);
    }

    @Test
    @DisplayName("outcomes found by id are applied in batch order")
    void byId() {
        List<OutboxEvent> batch = List.of(event("k"), event("k"));
        Map<java.util.UUID, PublishOutcome> byId = List.of(
                        PublishOutcome.published(batch.get(1).id()),
                        PublishOutcome.failed(batch.get(0).id(), "nack", true))
                .stream()
                .collect(Collectors.toMap(PublishOutcome::eventId, Function.identity()));

        List<PublishOutcome> applied = KeyHoldBack.apply(batch, byId);

        assertThat(applied.get(0)).isEqualTo(byId.get(batch.get(0).id()));
        assertThat(applied.get(1)).matches(KeyHoldBackTest::heldBack);
    }
}
