package dev.outboxjava.core.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.InvalidConfigurationException;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.RetryPolicy;
import dev.outboxjava.core.memory.InMemoryOutboxStore;
import dev.outboxjava.core.port.RetryMark;
import dev.outboxjava.core.time.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Sweeper, one tick at a time over the in-memory store")
class SweeperTest {

    private static final Duration LEASE_TIMEOUT = Duration.ofMinutes(2);

    private final ManualClock clock = ManualClock.startingAtEpochOf2024();
    private final InMemoryOutboxStore store = new InMemoryOutboxStore();
    private final RecordingStore recording = new RecordingStore(store);
    private final Sweeper sweeper = new Sweeper(recording, new SweeperConfig(LEASE_TIMEOUT, 10, 2), clock);

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

    private OutboxEvent stored(OutboxEvent event) {
        return store.find(event.id()).orElseThrow();
    }

    @Test
    @DisplayName("an expired lease goes back to pending with its attempts, last error and due time unchanged")
    void expiredLeaseReturns() {
        OutboxEvent event = append(1).get(0);
        UUID firstLease = UUID.randomUUID();
        store.lease(firstLease, 1, clock.instant());
        store.markRetry(
                firstLease, List.of(new RetryMark(event.id(), "broker unreachable", clock.instant())), clock.instant());
        UUID deadRelayLease = UUID.randomUUID();
        assertThat(store.lease(deadRelayLease, 1, clock.instant())).hasSize(1); // this relay then dies
        OutboxEvent before = stored(event);

        clock.advance(LEASE_TIMEOUT.plusMillis(1));
        int reclaimed = sweeper.runOnce();

        assertThat(reclaimed).isEqualTo(1);
        OutboxEvent after = stored(event);
        assertThat(after.status()).isEqualTo(EventStatus.PENDING);
        assertThat(after.attempts()).isEqualTo(1).isEqualTo(before.attempts());
        assertThat(after.lastError()).contains("broker unreachable");
        assertThat(after.nextAttemptAt()).isEqualTo(before.nextAttemptAt());
        assertThat(after.leaseId()).isEmpty();
        assertThat(after.leasedAt()).isEmpty();
    }

    @Test
    @DisplayName("a reclaimed event is leased and published by the next relay tick")
    void reclaimedEventIsPublishedAgain() {
        OutboxEvent event = append(1).get(0);
        store.lease(UUID.randomUUID(), 1, clock.instant());
        clock.advance(LEASE_TIMEOUT.plusSeconds(1));
        sweeper.runOnce();

        Relay relay = new Relay(
                store,
                new ScriptedPublisher(),
                new RelayConfig(10, Duration.ofMillis(50)),
                RetryPolicy.ofDefaults(),
                clock,
                RelayListener.NONE);

        assertThat(relay.runOnce().published()).isEqualTo(1);
        assertThat(stored(event).status()).isEqualTo(EventStatus.SENT);
        assertThat(stored(event).attempts()).isZero();
    }

    @Test
    @DisplayName("a lease exactly as old as the timeout is left alone; one a millisecond older is reclaimed")
    void boundary() {
        OutboxEvent event = append(1).get(0);
        store.lease(UUID.randomUUID(), 1, clock.instant());

        clock.advance(LEASE_TIMEOUT);
        assertThat(sweeper.runOnce()).isZero();
        assertThat(stored(event).status()).isEqualTo(EventStatus.IN_FLIGHT);

        clock.advance(Duration.ofMillis(1));
        assertThat(sweeper.runOnce()).isEqualTo(1);
        assertThat(recording.sweepCutoffs).last().isEqualTo(clock.instant().minus(LEASE_TIMEOUT));
    }

    @Test
    @DisplayName("pending, sent and dead-lettered events are never touched")
    void onlyInFlightIsSwept() {
        List<OutboxEvent> events = append(3);
        UUID lease = UUID.randomUUID();
        store.lease(lease, 2, clock.instant());
        store.markPublished(lease, List.of(events.get(0).id()), clock.instant());
        store.markDeadLettered(
                lease,
                List.of(new dev.outboxjava.core.port.DeadLetterMark(
                        events.get(1).id(), "x")),
                clock.instant());
        List<OutboxEvent> before = store.all();

        clock.advance(Duration.ofDays(1));
        assertThat(sweeper.runOnce()).isZero();
        assertThat(store.all()).isEqualTo(before);
    }

    @Test
    @DisplayName("works in bounded chunks: at most chunkSize per call and maxChunksPerTick calls per tick")
    void boundedChunks() {
        append(25);
        store.lease(UUID.randomUUID(), 25, clock.instant());
        clock.advance(LEASE_TIMEOUT.plusSeconds(1));

        assertThat(sweeper.runOnce()).isEqualTo(20);
        assertThat(recording.sweepLimits).containsExactly(10, 10);
        assertThat(store.countByStatus()).containsEntry(EventStatus.IN_FLIGHT, 5L);

        assertThat(sweeper.runOnce()).isEqualTo(5);
        assertThat(store.countByStatus())
                .containsEntry(EventStatus.IN_FLIGHT, 0L)
                .containsEntry(EventStatus.PENDING, 25L);
    }

    @Test
    @DisplayName("stops early when a chunk comes back short")
    void stopsEarly() {
        append(3);
        store.lease(UUID.randomUUID(), 3, clock.instant());
        clock.advance(LEASE_TIMEOUT.plusSeconds(1));

        assertThat(sweeper.runOnce()).isEqualTo(3);
        assertThat(recording.sweepLimits).containsExactly(10);
    }

    @Test
    @DisplayName("settings default to a 2 min lease timeout and reject bad values naming the setting")
    void settings() {
        assertThat(SweeperConfig.ofDefaults().leaseTimeout()).isEqualTo(Duration.ofMinutes(2));
        assertThatThrownBy(() -> new SweeperConfig(Duration.ZERO, 1, 1))
                .isInstanceOfSatisfying(
                        InvalidConfigurationException.class,
                        e -> assertThat(e.setting()).isEqualTo("sweeper.leaseTimeout"));
        assertThatThrownBy(() -> new SweeperConfig(Duration.ofSeconds(1), 0, 1))
                .isInstanceOfSatisfying(
                        InvalidConfigurationException.class,
                        e -> assertThat(e.setting()).isEqualTo("sweeper.chunkSize"));
        assertThatThrownBy(() -> new SweeperConfig(Duration.ofSeconds(1), 1, 0))
                .isInstanceOfSatisfying(
                        InvalidConfigurationException.class,
                        e -> assertThat(e.setting()).isEqualTo("sweeper.maxChunksPerTick"));
    }
}
