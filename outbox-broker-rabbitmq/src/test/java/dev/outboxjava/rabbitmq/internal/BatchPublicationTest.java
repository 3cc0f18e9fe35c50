package dev.outboxjava.rabbitmq.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.PublishOutcome;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class BatchPublicationTest {

    private static OutboxEvent event(String key) {
        return OutboxEvent.builder()
                .type("t")
                .destination("orders")
                .routingKey("rk")
                .key(key)
                .payload(new byte[0])
                .build();
    }

    private final List<OutboxEvent> events = List.of(event("a"), event("b"), event("a"), event("c"));
    private final BatchPublication publication = new BatchPublication(events);

    @Test
    @DisplayName(
            "acked events are published; a return before the ack makes it a retryable failure with the return's reason")
    void ackAndReturn() throws Exception {
        events.forEach(e -> publication.sent(events.indexOf(e)));
        publication.returned(events.get(1).id(), "unroutable: orders/rk");
        for (int i = 0; i < 4; i++) {
            publication.acked(i);
        }
        assertThat(publication.awaitRound(System.nanoTime())).isTrue();

        List<PublishOutcome> outcomes = publication.finish("timeout");

        assertThat(outcomes.get(0)).isInstanceOf(PublishOutcome.Published.class);
        assertThat(outcomes.get(1))
                .isEqualTo(PublishOutcome.unroutable(events.get(1).id(), "unroutable: orders/rk"));
    }

    @Test
    @DisplayName("a nack names exchange and routing key, and a later return makes it unroutable")
    void nackThenReturn() {
        publication.sent(0);
        publication.nacked(0);
        assertThat(publication.finish("x").get(0))
                .isInstanceOfSatisfying(
                        PublishOutcome.Failed.class,
                        failed ->
                                assertThat(failed.reason()).contains("'orders'").contains("'rk'"));

        BatchPublication other = new BatchPublication(events);
        other.sent(0);
        other.nacked(0);
        other.returned(events.get(0).id(), "unroutable: orders/rk");
        assertThat(other.finish("x").get(0))
                .isEqualTo(PublishOutcome.unroutable(events.get(0).id(), "unroutable: orders/rk"));
    }

    @Test
    @DisplayName("lost events settle the round and are handed back in batch order; unresolved ones fail at the end")
    void lostAndUnresolved() throws Exception {
        publication.sent(0);
        publication.sent(2);
        publication.sent(1);
        publication.lost(2);
        publication.lost(0);
        assertThat(publication.awaitRound(System.nanoTime() - 1)).isFalse();
        publication.acked(1);
        assertThat(publication.awaitRound(System.nanoTime())).isTrue();
        assertThat(publication.takeLost()).containsExactly(0, 2);

        List<PublishOutcome> outcomes = publication.finish("not confirmed in time");

        assertThat(outcomes.get(0))
                .isEqualTo(PublishOutcome.failed(events.get(0).id(), "not confirmed in time", true));
        assertThat(outcomes.get(1)).isInstanceOf(PublishOutcome.Published.class);
    }

    @Test
    @DisplayName("a failure of a key holds back later events of the same key only")
    void earlierFailureOfKey() {
        publication.fail(0, "boom", true);
        assertThat(publication.holdBackIfKeyFailed(2)).isTrue();
        assertThat(publication.holdBackIfKeyFailed(1)).isFalse();
        assertThat(publication.holdBackIfKeyFailed(3)).isFalse();
    }

    @Test
    @DisplayName("an event confirmed after an earlier event of its key was nacked is reported held back, not published")
    void confirmedAfterNackOfItsKeyIsHeldBack() {
        for (int i = 0; i < events.size(); i++) {
            publication.sent(i);
        }
        publication.acked(3);
        publication.acked(2);
        publication.acked(1);
        publication.nacked(0);

        List<PublishOutcome> outcomes = publication.finish("timeout");

        assertThat(outcomes.get(0))
                .isInstanceOfSatisfying(
                        PublishOutcome.Failed.class,
                        failed -> assertThat(failed.heldBack()).isFalse());
        assertThat(outcomes.get(2)).isInstanceOfSatisfying(PublishOutcome.Failed.class, failed -> {
            assertThat(failed.heldBack()).isTrue();
            assertThat(failed.reason()).contains(events.get(0).id().toString());
        });
        assertThat(outcomes.get(1)).isInstanceOf(PublishOutcome.Published.class);
        assertThat(outcomes.get(3)).isInstanceOf(PublishOutcome.Published.class);
    }

    @Test
    @DisplayName("after finishing, late confirms change nothing")
    void lateConfirmsIgnored() {
        publication.sent(0);
        List<PublishOutcome> outcomes = publication.finish("timeout");
        publication.acked(0);
        assertThat(outcomes.get(0)).isInstanceOf(PublishOutcome.Failed.class);
        assertThat(publication.finish("timeout").get(0)).isInstanceOf(PublishOutcome.Failed.class);
    }
}
