package dev.outboxjava.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.benchmarks.internal.MinuteStats;
import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.postgres.StoreLayout;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Scenario 7's rows: each interval held beside not held, then the goal's three verdicts. */
class LongTransactionRowsTest {

    private static MinuteStats.Minute minute(
            int index, double p99, long pending, long dead, double perScan, double lease) {
        return new MinuteStats.Minute(
                index, p99 / 2, p99, 120_000, 0, pending, pending <= 4_000, dead, perScan, lease, lease * 3, 240);
    }

    @Test
    void eachMinuteHeldIsComparedWithTheSameMinuteNotHeldAndTheGoalIsJudgedOnTheWholeRun() {
        LongTransactionScenario.Run notHeld = new LongTransactionScenario.Run(
                List.of(minute(0, 14.0, 200, 3_000, 3.0, 2.0), minute(1, 20.0, 300, 3_500, 4.0, 2.5)),
                6.0,
                18.0,
                240_000,
                239_500,
                0,
                2_000,
                0,
                "not held");
        LongTransactionScenario.Run held = new LongTransactionScenario.Run(
                List.of(
                        minute(0, 900.0, 1_000, 56_000, 56_000.0, 40.0),
                        minute(1, 18_000.0, 90_000, 240_000, 406_000.0, 950.0)),
                400.0,
                16_000.0,
                240_000,
                150_000,
                0,
                2_000,
                81_234,
                "81234 transaction ids old, held by open transaction: pid 1");
        ResultTable table = new ResultTable();

        BenchmarkMain.longTransaction(
                List.of(new LongTransactionScenario.Comparison(
                        StoreLayout.IN_PLACE, CompletionMode.KEEP_SENT, Ordering.Mode.NONE, notHeld, held)),
                BenchmarkConfig.parse(new String[] {"--scenarios", "7", "--held-seconds", "120"}),
                table);

        assertThat(table.details())
                .extracting(ResultTable.Detail::value)
                .containsExactly("not held", "81234 transaction ids old, held by open transaction: pid 1");
        List<ResultTable.Row> rows = table.rows();
        assertThat(rows)
                .hasSize(5)
                .allSatisfy(row -> assertThat(row.scenario())
                        .isEqualTo("7 long tx, in place, keep sent, ordering none, 2,000/s 120s"));
        ResultTable.Row minute2 = rows.get(1);
        assertThat(minute2.figure()).isEqualTo("minute 2: snapshot held");
        assertThat(minute2.value())
                .isEqualTo("p50 9000.0 / p99 18000.0 ms; BEHIND (backlog 90,000); 240,000 dead; "
                        + "406000.0 entries/scan; lease 950.0 ms (max 2850.0, 240 leases)");
        assertThat(minute2.reference()).startsWith("no snapshot held: p50 10.0 / p99 20.0 ms; kept up (backlog 300)");
        assertThat(minute2.ratio()).isEqualTo("p99 900.00x, lease 380.00x, entries/scan 101500.00x");
        assertThat(minute2.verdict()).isEmpty();

        assertThat(rows.get(2)).satisfies(row -> {
            assertThat(row.figure()).isEqualTo("p99 over the run: snapshot held");
            assertThat(row.value()).isEqualTo("16000.0 ms");
            assertThat(row.reference()).isEqualTo("no snapshot held: 18.0 ms");
            assertThat(row.target()).isEqualTo("<= 2x");
            assertThat(row.verdict()).isEqualTo("MISSED");
        });
        assertThat(rows.get(3)).satisfies(row -> {
            assertThat(row.figure()).isEqualTo("delivered while producing: snapshot held");
            assertThat(row.value()).isEqualTo("62.5 % of 240,000");
            assertThat(row.ratio()).isEqualTo("62.6 %");
            assertThat(row.verdict()).isEqualTo("MISSED");
        });
        assertThat(rows.get(4)).satisfies(row -> {
            assertThat(row.value()).isEqualTo("no, behind from minute 2");
            assertThat(row.reference()).isEqualTo("no snapshot held: yes");
            assertThat(row.verdict()).isEqualTo("MISSED");
        });
    }

    @Test
    void aRunThatKeepsUpMeetsTheGoal() {
        LongTransactionScenario.Run run = new LongTransactionScenario.Run(
                List.of(minute(0, 14.0, 200, 0, 3.0, 2.0)), 6.0, 14.0, 120_000, 119_800, 0, 2_000, 0, "not held");
        ResultTable table = new ResultTable();

        BenchmarkMain.longTransaction(
                List.of(new LongTransactionScenario.Comparison(
                        StoreLayout.APPEND_LOG, CompletionMode.DELETE_ON_PUBLISH, Ordering.Mode.PER_KEY, run, run)),
                BenchmarkConfig.parse(new String[] {"--held-interval-seconds", "10"}),
                table);

        assertThat(table.rows().get(0).figure()).isEqualTo("10 s 1: snapshot held");
        assertThat(table.rows().get(0).scenario()).contains("append log, delete on publish, ordering per_key");
        assertThat(table.rows().subList(1, 4))
                .extracting(ResultTable.Row::verdict)
                .containsOnly("met");
    }

    @Test
    void bothLayoutsOfOneSettingGetTheAppendLogRatioBesideTheInPlaceRatio() {
        LongTransactionScenario.Run fast = run(10.0, 119_800);
        LongTransactionScenario.Run slow = run(1_000.0, 60_000);
        LongTransactionScenario.Run log = run(15.0, 119_000);
        ResultTable table = new ResultTable();

        BenchmarkMain.longTransaction(
                List.of(
                        new LongTransactionScenario.Comparison(
                                StoreLayout.IN_PLACE, CompletionMode.KEEP_SENT, Ordering.Mode.NONE, fast, slow),
                        new LongTransactionScenario.Comparison(
                                StoreLayout.APPEND_LOG, CompletionMode.KEEP_SENT, Ordering.Mode.NONE, fast, log),
                        new LongTransactionScenario.Comparison(
                                StoreLayout.APPEND_LOG, CompletionMode.KEEP_SENT, Ordering.Mode.PER_KEY, fast, log)),
                BenchmarkConfig.parse(new String[] {"--held-seconds", "60"}),
                table);

        assertThat(table.rows())
                .extracting(ResultTable.Row::scenario)
                .contains(
                        "7 long tx, in place, keep sent, ordering none, 2,000/s 60s",
                        "7 long tx, append log, keep sent, ordering none, 2,000/s 60s",
                        "7 long tx, append log, keep sent, ordering per_key, 2,000/s 60s");
        List<ResultTable.Row> sideBySide = table.rows().stream()
                .filter(row -> row.scenario().contains("append log vs in place"))
                .toList();
        // per_key ran in one layout only: nothing to set beside it
        assertThat(sideBySide)
                .hasSize(2)
                .allSatisfy(row -> assertThat(row.scenario())
                        .isEqualTo("7 long tx, append log vs in place, keep sent, ordering none, 2,000/s 60s"));
        assertThat(sideBySide.get(0)).satisfies(row -> {
            assertThat(row.figure()).isEqualTo("p99 snapshot held / not held");
            assertThat(row.value()).isEqualTo("append log: 1.50x");
            assertThat(row.reference()).isEqualTo("in place: 100.00x");
            assertThat(row.ratio()).isEqualTo("0.02x");
        });
        assertThat(sideBySide.get(1)).satisfies(row -> {
            assertThat(row.figure()).isEqualTo("delivered while producing, snapshot held / not held");
            assertThat(row.value()).isEqualTo("append log: 99.3 %");
            assertThat(row.reference()).isEqualTo("in place: 50.1 %");
        });
    }

    private static LongTransactionScenario.Run run(double p99, long delivered) {
        return new LongTransactionScenario.Run(
                List.of(minute(0, p99, 200, 0, 3.0, 2.0)), p99 / 2, p99, 120_000, delivered, 0, 2_000, 0, "not held");
    }
}
