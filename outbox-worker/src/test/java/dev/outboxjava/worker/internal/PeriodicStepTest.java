package dev.outboxjava.worker.internal;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.OutboxStoreException;
import dev.outboxjava.core.time.ManualClock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("A sweeper or cleaner loop step")
class PeriodicStepTest {

    private final ManualClock clock = ManualClock.startingAtEpochOf2024();
    private final OutageTracker database = new OutageTracker("database", false, clock);
    private final LogCapture log = new LogCapture("dev.outboxjava.worker.outage");
    private final AtomicBoolean down = new AtomicBoolean();

    @AfterEach
    void detach() {
        log.close();
    }

    private PeriodicStep step(String name) {
        return new PeriodicStep(
                name,
                () -> {
                    if (down.get()) {
                        throw new OutboxStoreException("connection refused");
                    }
                    return 0;
                },
                Duration.ofSeconds(30),
                new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(8)),
                database,
                new OutageTracker(name + " loop", true, clock));
    }

    @Test
    void givenATickSucceeds_thenTheNextOneIsAfterTheInterval() {
        assertThat(step("sweeper").step()).isEqualTo(new LoopStep.Next(Duration.ofSeconds(30), false));
    }

    @Test
    void givenTheDatabaseIsDownForSeveralLoops_thenTheOutageIsLoggedOnceForAllOfThem() {
        PeriodicStep sweeper = step("sweeper");
        PeriodicStep cleaner = step("cleaner");
        down.set(true);

        assertThat(sweeper.step().delay()).isEqualTo(Duration.ofSeconds(1));
        assertThat(cleaner.step().delay()).isEqualTo(Duration.ofSeconds(1));
        assertThat(sweeper.step().delay()).isEqualTo(Duration.ofSeconds(2));
        down.set(false);
        sweeper.step();
        cleaner.step();

        assertThat(log.atLeast(Level.WARN)).singleElement().asString().startsWith("database unavailable");
        assertThat(log.atLeast(Level.INFO)).hasSize(2);
    }

    @Test
    @DisplayName("backing off from a database outage, the step probes the database's health check and is told "
            + "when it is back")
    void givenTheDatabaseIsDown_thenTheBackoffProbesIt() {
        PeriodicStep sweeper = new PeriodicStep(
                "sweeper",
                () -> {
                    if (down.get()) {
                        throw new OutboxStoreException("connection refused");
                    }
                    return 0;
                },
                Duration.ofSeconds(30),
                new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(8)),
                database,
                new OutageTracker("sweeper loop", true, clock),
                () -> down.get() ? HealthCheck.down("refused") : HealthCheck.up("fine"));
        down.set(true);

        LoopStep.Next backoff = sweeper.step();

        assertThat(backoff.probe()).isNotNull();
        assertThat(backoff.probe().recovered().getAsBoolean()).isFalse();
        down.set(false);
        assertThat(backoff.probe().recovered().getAsBoolean()).isTrue();
    }
}
