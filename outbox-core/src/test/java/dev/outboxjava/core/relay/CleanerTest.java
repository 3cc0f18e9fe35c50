package dev.outboxjava.core.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.InvalidConfigurationException;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.memory.InMemoryOutboxStore;
import dev.outboxjava.core.port.DeadLetterMark;
import dev.outboxjava.core.time.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Cleaner, one tick at a time over the in-memory store")
class CleanerTest {

    private static final Duration RETENTION = Duration.ofDays(7);

    private final ManualClock clock = ManualClock.startingAtEpochOf2024();
    private final InMemoryOutboxStore store = new InMemoryOutboxStore();
    private final RecordingStore recording = new RecordingStore(store);
    private final Cleaner cleaner = new Cleaner(recording, new CleanerConfig(RETENTION, 2, 2), clock);

    private List<OutboxEvent> append(int count) {
        List<OutboxEvent> events = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            events.add(OutboxEvent.builder()
                    .type("t")
                    .destination("d")
                    .payload(new byte[0])
                    .clock(clock)
                    .build());
        }
        return store.append(events);
    }

    private List<OutboxEvent> appendSent(int count) {
        List<OutboxEvent> events = append(count);
        UUID lease = UUID.randomUUID();
        store.lease(lease, count, clock.instant());
        store.markPublished(lease, events.stream().map(OutboxEvent::id).toList(), clock.instant());
        return events;
    }

    @Test
    @DisplayName("deletes only sent events older than the retention; recent sent, pending and dead letters stay")
    void deletesOnlyOldSent() {
        OutboxEvent oldSent = appendSent(1).get(0);
        OutboxEvent oldPending = store.append(OutboxEvent.builder()
                        .type("t")
                        .destination("d")
                        .payload(new byte[0])
                        .clock(clock)
                        .availableAt(clock.instant().plus(Duration.ofDays(30)))
                        .build())
                .get(0);
        OutboxEvent oldDead = append(1).get(0);
        UUID deadLease = UUID.randomUUID();
        assertThat(store.lease(deadLease, 10, clock.instant()))
                .extracting(OutboxEvent::id)
                .containsExactly(oldDead.id());
        store.markDeadLettered(deadLease, List.of(new DeadLetterMark(oldDead.id(), "poison")), clock.instant());
        clock.advance(RETENTION.minusHours(1));
        OutboxEvent recentSent = appendSent(1).get(0);
        clock.advance(Duration.ofHours(2));

        assertThat(cleaner.runOnce()).isEqualTo(1);

        assertThat(store.find(oldSent.id())).isEmpty();
        assertThat(store.find(recentSent.id()))
                .get()
                .extracting(OutboxEvent::status)
                .isEqualTo(EventStatus.SENT);
        assertThat(store.find(oldPending.id()))
                .get()
                .extracting(OutboxEvent::status)
                .isEqualTo(EventStatus.PENDING);
        assertThat(store.find(oldDead.id()))
                .get()
                .extracting(OutboxEvent::status)
                .isEqualTo(EventStatus.FAILED);
    }

    @Test
    @DisplayName("measures the retention from the sent time: an event sent exactly one retention ago stays")
    void boundary() {
        OutboxEvent sent = appendSent(1).get(0);
        clock.advance(RETENTION);
        assertThat(cleaner.runOnce()).isZero();
        assertThat(recording.cleanUpCutoffs).containsExactly(sent.createdAt());

        clock.advance(Duration.ofMillis(1));
        assertThat(cleaner.runOnce()).isEqualTo(1);
    }

    @Test
    @DisplayName("deletes in bounded chunks: at most chunkSize per call and maxChunksPerTick calls per tick")
    void boundedChunks() {
        appendSent(5);
        clock.advance(RETENTION.plusSeconds(1));

        assertThat(cleaner.runOnce()).isEqualTo(4);
        assertThat(recording.cleanUpLimits).containsExactly(2, 2);
        assertThat(store.all()).hasSize(1);

        assertThat(cleaner.runOnce()).isEqualTo(1);
        assertThat(store.all()).isEmpty();
    }

    @Test
    @DisplayName("stops early when a chunk comes back short")
    void stopsEarly() {
        appendSent(1);
        clock.advance(RETENTION.plusSeconds(1));

        assertThat(cleaner.runOnce()).isEqualTo(1);
        assertThat(recording.cleanUpLimits).containsExactly(2);
    }

    @Test
    @DisplayName("settings default to 7 days' retention and reject bad values naming the setting")
    void settings() {
        assertThat(CleanerConfig.ofDefaults().retention()).isEqualTo(Duration.ofDays(7));
        assertThatThrownBy(() -> new CleanerConfig(Duration.ofSeconds(-1), 1, 1))
                .isInstanceOfSatisfying(
                        InvalidConfigurationException.class,
                        e -> assertThat(e.setting()).isEqualTo("cleaner.retention"));
        assertThatThrownBy(() -> new CleanerConfig(Duration.ZERO, 0, 1))
                .isInstanceOfSatisfying(
                        InvalidConfigurationException.class,
                        e -> assertThat(e.setting()).isEqualTo("cleaner.chunkSize"));
        assertThatThrownBy(() -> new CleanerConfig(Duration.ZERO, 1, 0))
                .isInstanceOfSatisfying(
                        InvalidConfigurationException.class,
                        e -> assertThat(e.setting()).isEqualTo("cleaner.maxChunksPerTick"));
    }
}
