package dev.outboxjava.worker.observability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.port.Backlog;
import dev.outboxjava.postgres.health.DatabaseHealthReport;
import dev.outboxjava.postgres.health.OpenTransaction;
import dev.outboxjava.postgres.health.PreparedTransaction;
import dev.outboxjava.postgres.health.ReplicationSlotHold;
import dev.outboxjava.worker.HealthConfig;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The readiness verdict on what holds the xmin horizon: sessions, prepared transactions, replication slots. */
class DatabaseSignalsTest {

    private static final Instant NOW = Instant.parse("2026-11-25T12:00:00Z");
    private static final HealthConfig TEN_MINUTES =
            new HealthConfig(Duration.ZERO, Duration.ofMinutes(10), Optional.empty());

    private static OpenTransaction session(Duration age, long xidAge) {
        return new OpenTransaction(
                4711,
                "billing-report",
                "10.0.0.5:51234",
                "report",
                "idle in transaction",
                NOW.minus(age),
                Optional.of(NOW.minus(age).plusSeconds(1)),
                age,
                xidAge);
    }

    private static PreparedTransaction prepared(Duration age, long xidAge) {
        return new PreparedTransaction("tm-42", "app", NOW.minus(age), age, xidAge);
    }

    private static ReplicationSlotHold slot(boolean active, long xminAge) {
        return new ReplicationSlotHold(
                "standby_1",
                "physical",
                active,
                active ? Optional.of(99) : Optional.empty(),
                OptionalLong.of(xminAge),
                OptionalLong.empty());
    }

    private static HealthCheck evaluate(
            Optional<OpenTransaction> session, List<PreparedTransaction> prepared, List<ReplicationSlotHold> slots) {
        DatabaseHealthReport report =
                new DatabaseHealthReport(NOW, Optional.empty(), session, Optional.empty(), prepared, slots);
        return new DatabaseSignals(Backlog.EMPTY, report).evaluate(TEN_MINUTES);
    }

    @Test
    void anOldSessionIsNamedWithItsPidApplicationClientAndTimes() {
        HealthCheck check = evaluate(Optional.of(session(Duration.ofMinutes(11), 5_000)), List.of(), List.of());

        assertThat(check.healthy()).isFalse();
        assertThat(check.detail())
                .contains("a transaction holds back the xmin horizon")
                .contains(
                        "pid 4711 (billing-report), idle in transaction, client 10.0.0.5:51234, user report, open 660.0s")
                .contains("last query started 2026-11-25T11:49:01Z")
                .contains("over outbox.health.max.xmin.age=10m");
    }

    @Test
    void anOldPreparedTransactionMakesItNotReadyAndSaysHowToEndIt() {
        HealthCheck check = evaluate(Optional.empty(), List.of(prepared(Duration.ofMinutes(30), 9_000)), List.of());

        assertThat(check.healthy()).isFalse();
        assertThat(check.detail())
                .contains("prepared transaction 'tm-42' (owner app)")
                .contains("COMMIT PREPARED or ROLLBACK PREPARED")
                .contains("outbox.health.max.xmin.age=10m");
    }

    @Test
    void aYoungPreparedTransactionIsNoBreach() {
        assertThat(evaluate(Optional.empty(), List.of(prepared(Duration.ofMinutes(1), 10)), List.of())
                        .healthy())
                .isTrue();
    }

    @Test
    void aSlotHoldingTheHorizonIsNamedButCarriesNoTimeToJudge() {
        HealthCheck check =
                evaluate(Optional.of(session(Duration.ofSeconds(3), 10)), List.of(), List.of(slot(false, 80_000)));

        assertThat(check.healthy()).isTrue();
        assertThat(check.detail())
                .contains("oldest transaction 3.000s (pid 4711)")
                .contains("held by replication slot 'standby_1' (physical, inactive: nothing consumes it), xmin "
                        + "80000 transaction ids old");
    }

    @Test
    void theHorizonIsHeldByWhatIsMostTransactionIdsOld() {
        DatabaseHealthReport report = new DatabaseHealthReport(
                NOW,
                Optional.empty(),
                Optional.of(session(Duration.ofMinutes(1), 100)),
                Optional.empty(),
                List.of(prepared(Duration.ofMinutes(2), 300)),
                List.of(
                        slot(true, 200),
                        new ReplicationSlotHold(
                                "cdc", "logical", true, Optional.of(7), OptionalLong.empty(), OptionalLong.of(1_000))));

        assertThat(report.xminHorizon()).hasValueSatisfying(horizon -> {
            assertThat(horizon.xidAge())
                    .as("a logical slot's catalog_xmin does not hold the outbox")
                    .isEqualTo(300);
            assertThat(horizon.describe()).startsWith("300 transaction ids old, held by prepared transaction 'tm-42'");
        });
        assertThat(new DatabaseHealthReport(NOW, Optional.empty(), Optional.empty(), Optional.empty()).xminHorizon())
                .isEmpty();
    }
}
