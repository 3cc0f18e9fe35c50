package dev.outboxjava.core.port;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The ports' value types")
class PortValuesTest {

    private final UUID id = UUID.randomUUID();

    @Test
    @DisplayName("a mark result copies its sets, so a store cannot change a result it returned")
    void markResultCopies() {
        Set<UUID> marked = new HashSet<>(Set.of(id));
        MarkResult result = new MarkResult(marked, Set.of());
        marked.clear();
        assertThat(result.marked()).containsExactly(id);
        assertThatThrownBy(() -> result.leaseLost().add(id)).isInstanceOf(UnsupportedOperationException.class);
        assertThat(MarkResult.empty().marked()).isEmpty();
    }

    @Test
    @DisplayName("outcomes say which event they are about, and a failure why and whether to retry")
    void outcomes() {
        assertThat(PublishOutcome.published(id)).isEqualTo(new PublishOutcome.Published(id));
        PublishOutcome failed = PublishOutcome.failed(id, "too large", false);
        assertThat(failed.eventId()).isEqualTo(id);
        assertThat(failed).isInstanceOfSatisfying(PublishOutcome.Failed.class, f -> {
            assertThat(f.reason()).isEqualTo("too large");
            assertThat(f.retryable()).isFalse();
        });
    }

    @Test
    @DisplayName("outcomes and marks refuse missing fields")
    void refuseNulls() {
        assertThatThrownBy(() -> PublishOutcome.published(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> PublishOutcome.failed(id, null, true)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new RetryMark(id, "x", null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new DeadLetterMark(id, null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    @DisplayName("a dead-letter filter by ids copies them")
    void filterCopies() {
        Set<UUID> ids = new HashSet<>(Set.of(id));
        DeadLetterFilter filter = DeadLetterFilter.ids(ids);
        ids.clear();
        assertThat(filter.ids()).containsExactly(id);
        assertThat(new RetryMark(id, "x", Instant.EPOCH).nextAttemptAt()).isEqualTo(Instant.EPOCH);
    }
}
