package dev.outboxjava.postgres;

import static dev.outboxjava.postgres.TestEvents.ids;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.postgres.internal.Identifiers;
import dev.outboxjava.postgres.internal.LogLayoutDdl;
import dev.outboxjava.testkit.postgres.PostgresExtension;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Per key on the append-only layout, new events whose keys a lease took moments ago wait in the log
 * rather than each becoming a state row (which a held horizon would keep as dead index entries): they are
 * parked only when a later event can be leased past them, or once that lease is older than ten seconds.
 */
class LogLayoutBriefHoldIT {

    @RegisterExtension
    static final PostgresExtension postgres = new PostgresExtension();

    private final Instant now = Instant.parse("2024-03-01T10:00:00Z");
    private PostgresOutboxStore store;

    @BeforeEach
    void createStore() {
        PostgresOutboxConfig config = PostgresOutboxConfig.builder()
                .tableName(postgres.schema() + ".brief_hold")
                .layout(StoreLayout.APPEND_LOG)
                .ordering(Ordering.perKey(Ordering.AfterDeadLetter.HOLD_KEY))
                .wakeUpMode(WakeUpMode.NONE)
                .build();
        store = PostgresOutboxStore.create(postgres.dataSource(), config);
        store.ensureSchema();
    }

    @AfterEach
    void dropStore() {
        postgres.fixture()
                .execute(LogLayoutDdl.drop(
                        Identifiers.tableName("tableName", store.config().tableName())));
    }

    @Test
    @DisplayName("a burst of events whose keys are in flight waits in the log, in order, and parks nothing")
    void burstBehindKeysInFlightWaitsInTheLog() throws Exception {
        List<OutboxEvent> first = append(event("a"), event("b"));
        UUID lease = UUID.randomUUID();
        assertThat(store.lease(lease, 10, now)).extracting(OutboxEvent::id).containsExactlyElementsOf(ids(first));
        List<OutboxEvent> burst = append(event("c"), event("a"), event("b"));

        // c can go; a and b come after it with nothing leasable behind them: the read stops before a
        assertThat(store.lease(UUID.randomUUID(), 10, now))
                .extracting(OutboxEvent::id)
                .containsExactly(burst.get(0).id());
        assertThat(store.lease(UUID.randomUUID(), 10, now.plusMillis(500))).isEmpty();
        assertThat(stateRows()).isZero();

        List<OutboxEvent> more = append(event("a"));
        store.markPublished(lease, ids(first), now);
        UUID second = UUID.randomUUID();
        assertThat(store.lease(second, 10, now.plusMillis(600)))
                .extracting(OutboxEvent::id)
                .containsExactly(burst.get(1).id(), burst.get(2).id());
        assertThat(store.lease(UUID.randomUUID(), 10, now.plusMillis(700))).isEmpty();
        store.markPublished(second, List.of(burst.get(1).id(), burst.get(2).id()), now);
        assertThat(store.lease(UUID.randomUUID(), 10, now.plusMillis(800)))
                .extracting(OutboxEvent::id)
                .containsExactlyElementsOf(ids(more));
        assertThat(stateRows()).isZero();
    }

    @Test
    @DisplayName("a held event with a leasable one after it is parked, so that the later one is not kept waiting")
    void leasableEventAfterParksTheHeldOne() throws Exception {
        List<OutboxEvent> first = append(event("a"));
        UUID lease = UUID.randomUUID();
        store.lease(lease, 10, now);
        List<OutboxEvent> next = append(event("a"), event("c"));

        assertThat(store.lease(UUID.randomUUID(), 10, now))
                .extracting(OutboxEvent::id)
                .containsExactly(next.get(1).id());
        assertThat(stateRows()).isEqualTo(1);

        store.markPublished(lease, ids(first), now);
        assertThat(store.lease(UUID.randomUUID(), 10, now))
                .extracting(OutboxEvent::id)
                .containsExactly(next.get(0).id());
    }

    @Test
    @DisplayName("a batch that takes seconds to publish keeps its keys' next events in the log, not in the state table")
    void slowBatchKeepsTheReadWaiting() throws Exception {
        List<OutboxEvent> first = append(event("a"), event("b"));
        UUID lease = UUID.randomUUID();
        store.lease(lease, 10, now);
        List<OutboxEvent> next = append(event("a"), event("b"));

        // relays that lease all keys at once on a loaded machine: every read finds the keys held for seconds
        for (int second = 2; second <= 9; second++) {
            assertThat(store.lease(UUID.randomUUID(), 10, now.plusSeconds(second)))
                    .isEmpty();
        }
        assertThat(stateRows()).isZero();

        store.markPublished(lease, ids(first), now.plusSeconds(9));
        assertThat(store.lease(UUID.randomUUID(), 10, now.plusSeconds(9)))
                .extracting(OutboxEvent::id)
                .containsExactlyElementsOf(ids(next));
        assertThat(stateRows()).isZero();
    }

    @Test
    @DisplayName("a lease older than ten seconds no longer holds the read: its keys' events are parked")
    void oldLeaseNoLongerHoldsTheRead() throws Exception {
        List<OutboxEvent> first = append(event("a"), event("b"));
        UUID lease = UUID.randomUUID();
        store.lease(lease, 10, now);
        append(event("a"), event("b"));

        assertThat(store.lease(UUID.randomUUID(), 10, now.plusMillis(9_999))).isEmpty();
        assertThat(stateRows()).isZero();
        assertThat(store.lease(UUID.randomUUID(), 10, now.plusSeconds(11))).isEmpty();
        assertThat(stateRows()).isEqualTo(2);

        List<OutboxEvent> later = append(event("c"));
        assertThat(store.lease(UUID.randomUUID(), 10, now.plusSeconds(11)))
                .extracting(OutboxEvent::id)
                .containsExactlyElementsOf(ids(later));
        store.markPublished(lease, ids(first), now.plusSeconds(12));
        assertThat(store.lease(UUID.randomUUID(), 10, now.plusSeconds(12))).hasSize(2);
    }

    private List<OutboxEvent> append(OutboxEvent... events) {
        return TestEvents.append(store, events);
    }

    private OutboxEvent event(String key) {
        return TestEvents.event(Clock.fixed(now, ZoneOffset.UTC), key);
    }

    private long stateRows() throws Exception {
        try (Connection connection = postgres.dataSource().getConnection();
                Statement statement = connection.createStatement();
                ResultSet rs = statement.executeQuery(
                        "SELECT count(*) FROM " + store.config().tableName() + "_state")) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
