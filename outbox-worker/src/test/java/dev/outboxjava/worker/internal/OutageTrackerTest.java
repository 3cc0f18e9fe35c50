package dev.outboxjava.worker.internal;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.time.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("An outage tracker")
class OutageTrackerTest {

    private final ManualClock clock = ManualClock.startingAtEpochOf2024();
    private final Instant start = clock.instant();
    private final OutageTracker broker = new OutageTracker("broker", false, clock);
    private final LogCapture log = new LogCapture("dev.outboxjava.worker.outage");

    @AfterEach
    void detach() {
        log.close();
    }

    @Test
    @DisplayName("reports the outage from when the dependency was seen down to when a probe saw it back, "
            + "not to the first success after the loop's own backoff")
    void reportsWhenTheDependencyWasSeenDownAndSeenBack() {
        broker.failed("connection refused", null);
        clock.advance(Duration.ofSeconds(5));
        broker.probed(HealthCheck.down("connection refused"));
        clock.advance(Duration.ofSeconds(28));
        assertThat(broker.probed(HealthCheck.up("connected"))).isTrue();
        clock.advance(Duration.ofSeconds(29)); // the loop finishes its backoff, then succeeds

        assertThat(broker.succeeded()).isTrue();

        assertThat(log.atLeast(Level.INFO)).hasSize(2);
        assertThat(log.atLeast(Level.INFO).get(1))
                .startsWith("broker available again after 33000 ms")
                .contains("seen failing at " + start)
                .contains("seen answering at " + start.plusSeconds(33))
                .contains("1 failed attempt(s)");
    }

    @Test
    @DisplayName("leaves the failure of an operation under way when the outage ended to that outage, "
            + "and starts a new one at the next operation's failure")
    void aFailureBegunBeforeTheOutageEndedStartsNoNewOne() {
        OutageTracker database = new OutageTracker("database", false, clock);
        database.failed("EOFException", null);
        long began = database.outagesEnded();
        database.succeeded(); // another operation, on a new connection, got through

        assertThat(database.failed("EOFException on a connection the outage broke", null, began))
                .isFalse();
        assertThat(database.isDown()).isFalse();
        assertThat(database.lastFailure()).isPresent();
        assertThat(log.atLeast(Level.INFO)).hasSize(2);

        assertThat(database.failed("connection refused", null, database.outagesEnded()))
                .as("an operation begun after the outage ended")
                .isTrue();
        assertThat(log.atLeast(Level.INFO).get(2)).startsWith("database unavailable");
    }

    @Test
    @DisplayName("without a probe seeing it back, the outage ends at the success that ends it")
    void withoutAProbeTheSuccessEndsIt() {
        broker.failed("connection refused", null);
        broker.failed("connection refused", null);
        clock.advance(Duration.ofSeconds(12));

        broker.succeeded();

        assertThat(log.atLeast(Level.INFO).get(1))
                .startsWith("broker available again after 12000 ms")
                .contains("seen answering at " + start.plusSeconds(12))
                .contains("2 failed attempt(s)");
    }

    @Test
    @DisplayName("a probe that fails again after a passing one moves the return to the next passing probe")
    void aFlappingDependencyIsBackOnlyWhenItStaysBack() {
        broker.failed("connection refused", null);
        broker.probed(HealthCheck.down("refused"));
        clock.advance(Duration.ofSeconds(3));
        broker.probed(HealthCheck.up("connected"));
        clock.advance(Duration.ofSeconds(2));
        broker.probed(HealthCheck.down("refused again"));
        clock.advance(Duration.ofSeconds(4));
        broker.probed(HealthCheck.up("connected"));
        clock.advance(Duration.ofSeconds(10));

        broker.succeeded();

        assertThat(log.atLeast(Level.INFO).get(1)).startsWith("broker available again after 9000 ms");
    }

    @Test
    @DisplayName("a passing health check is no return when no check failed during the outage "
            + "(the work fails for another reason: the backoff stands)")
    void aHealthyProbeWithoutAFailedOneIsNoReturn() {
        broker.failed("the statement failed", null);

        assertThat(broker.probed(HealthCheck.up("fine"))).isFalse();
        assertThat(broker.probed(HealthCheck.down("refused"))).isFalse();
        assertThat(broker.probed(HealthCheck.up("fine"))).isTrue();
    }

    @Test
    @DisplayName("after a failed connection, the first passing health check is the return "
            + "(a dependency back before the first probe is not missed)")
    void aFailedConnectionIsSeenDown() {
        broker.failed("connection reset", null);
        broker.unreachable();
        clock.advance(Duration.ofSeconds(2));

        assertThat(broker.probed(HealthCheck.up("connected"))).isTrue();
        broker.succeeded();
        assertThat(log.atLeast(Level.INFO).get(1)).startsWith("broker available again after 2000 ms");
    }

    @Test
    @DisplayName("the recovery probe of a loop backing off says yes once the dependency answers again, "
            + "or once another loop's success ended the outage")
    void recoveryProbe() {
        AtomicReference<HealthCheck> health = new AtomicReference<>(HealthCheck.down("refused"));
        broker.failed("connection refused", null);
        BooleanSupplier probe = broker.recoveryProbe(health::get);

        assertThat(probe.getAsBoolean()).isFalse();
        health.set(HealthCheck.up("connected"));
        assertThat(probe.getAsBoolean()).isTrue();

        BooleanSupplier otherLoop = broker.recoveryProbe(() -> {
            throw new IllegalStateException("unreachable");
        });
        assertThat(otherLoop.getAsBoolean())
                .as("a check that throws counts as failing")
                .isFalse();
        broker.succeeded();
        assertThat(otherLoop.getAsBoolean()).as("another loop got through").isTrue();
    }
}
