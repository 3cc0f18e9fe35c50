package dev.outboxjava.core;

import static dev.outboxjava.core.EventStatus.FAILED;
import static dev.outboxjava.core.EventStatus.IN_FLIGHT;
import static dev.outboxjava.core.EventStatus.PENDING;
import static dev.outboxjava.core.EventStatus.SENT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

@DisplayName("EventStatus, the event's state machine")
class EventStatusTest {

    /** The diagram in docs/architecture.md, written out edge by edge. Everything else is illegal. */
    private static final Set<List<EventStatus>> LEGAL = Set.of(
            List.of(PENDING, IN_FLIGHT), // lease
            List.of(IN_FLIGHT, SENT), // published
            List.of(IN_FLIGHT, PENDING), // retryable failure, lease expired, released
            List.of(IN_FLIGHT, FAILED), // budget spent or not retryable: dead letter
            List.of(FAILED, PENDING), // operator requeue
            List.of(PENDING, FAILED)); // operator dead-letter-now, of an event waiting for a retry

    private static final UUID EVENT_ID = UUID.fromString("018c2b5e-0000-7000-8000-000000000001");

    static Stream<Arguments> legalTransitions() {
        return allPairs().filter(pair -> LEGAL.contains(pair)).map(pair -> Arguments.of(pair.get(0), pair.get(1)));
    }

    static Stream<Arguments> illegalTransitions() {
        return allPairs().filter(pair -> !LEGAL.contains(pair)).map(pair -> Arguments.of(pair.get(0), pair.get(1)));
    }

    private static Stream<List<EventStatus>> allPairs() {
        List<List<EventStatus>> pairs = new ArrayList<>();
        for (EventStatus from : EventStatus.values()) {
            for (EventStatus to : EventStatus.values()) {
                pairs.add(List.of(from, to));
            }
        }
        return pairs.stream();
    }

    @Test
    @DisplayName("the matrix of 16 moves splits into 6 legal and 10 illegal ones")
    void matrixIsComplete() {
        assertThat(legalTransitions().count()).isEqualTo(6);
        assertThat(illegalTransitions().count()).isEqualTo(10);
    }

    @ParameterizedTest(name = "{0} -> {1} is allowed")
    @MethodSource("legalTransitions")
    @DisplayName("a legal move is allowed and returns its target")
    void legalMoveIsAllowed(EventStatus from, EventStatus to) {
        assertThat(from.canMoveTo(to)).isTrue();
        assertThat(from.allowedTargets()).contains(to);
        assertThat(from.checkTransition(EVENT_ID, to)).isSameAs(to);
    }

    @ParameterizedTest(name = "{0} -> {1} is refused")
    @MethodSource("illegalTransitions")
    @DisplayName("an illegal move is refused with the event id, the from and the to state")
    void illegalMoveIsRefused(EventStatus from, EventStatus to) {
        assertThat(from.canMoveTo(to)).isFalse();
        assertThat(from.allowedTargets()).doesNotContain(to);
        assertThatThrownBy(() -> from.checkTransition(EVENT_ID, to))
                .isInstanceOfSatisfying(IllegalTransitionException.class, e -> {
                    assertThat(e.eventId()).isEqualTo(EVENT_ID);
                    assertThat(e.from()).isEqualTo(from);
                    assertThat(e.to()).isEqualTo(to);
                    assertThat(e.getMessage()).contains(EVENT_ID.toString(), from.name(), to.name());
                })
                .isInstanceOf(OutboxException.class);
    }

    @Test
    @DisplayName("the allowed targets cannot be changed by a caller")
    void allowedTargetsAreReadOnly() {
        assertThatThrownBy(() -> PENDING.allowedTargets().add(SENT)).isInstanceOf(UnsupportedOperationException.class);
        assertThat(PENDING.canMoveTo(SENT)).isFalse();
    }

    @Test
    @DisplayName("sent and failed are terminal; pending and in flight are not")
    void terminalStates() {
        assertThat(SENT.isTerminal()).isTrue();
        assertThat(FAILED.isTerminal()).isTrue();
        assertThat(PENDING.isTerminal()).isFalse();
        assertThat(IN_FLIGHT.isTerminal()).isFalse();
    }

    @Test
    @DisplayName("sent has no way out")
    void sentHasNoWayOut() {
        assertThat(SENT.allowedTargets()).isEmpty();
    }

    @Nested
    @DisplayName("database values")
    class DatabaseValues {

        @Test
        @DisplayName("are the lower-case names stored in the status column")
        void areLowerCaseNames() {
            assertThat(PENDING.databaseValue()).isEqualTo("pending");
            assertThat(IN_FLIGHT.databaseValue()).isEqualTo("in_flight");
            assertThat(SENT.databaseValue()).isEqualTo("sent");
            assertThat(FAILED.databaseValue()).isEqualTo("failed");
        }

        @ParameterizedTest(name = "{0}")
        @EnumSource(EventStatus.class)
        @DisplayName("round-trip through fromDatabaseValue")
        void roundTrip(EventStatus status) {
            assertThat(EventStatus.fromDatabaseValue(status.databaseValue())).isSameAs(status);
        }

        @Test
        @DisplayName("an unknown value is refused with a message listing the known ones")
        void unknownValueIsRefused() {
            assertThatThrownBy(() -> EventStatus.fromDatabaseValue("PENDING"))
                    .isInstanceOf(OutboxException.class)
                    .hasMessageContaining("'PENDING'")
                    .hasMessageContaining("pending, in_flight, sent, failed");
        }
    }
}
