package dev.outboxjava.benchmarks.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

class MinuteStatsTest {

    private static final long START = 1_000_000_000L;
    private static final long MINUTE = 60_000_000_000L;
    private static final long MS = 1_000_000L;

    @Test
    void eventsLeasesAndCountersFallInTheIntervalTheyBeganIn() {
        MinuteStats stats = new MinuteStats(START, MINUTE);
        // minute 1: 100 events of 1..100 ms; minute 2: 100 events of 1..100 s
        for (int i = 1; i <= 100; i++) {
            stats.delivered(START + i * MS, START + i * MS + i * MS);
            stats.delivered(START + MINUTE + i * MS, START + MINUTE + i * MS + i * 1000 * MS);
        }
        stats.lease(START + 5 * MS, 2 * MS);
        stats.lease(START + 6 * MS, 4 * MS);
        stats.lease(START + MINUTE + 1, 900 * MS);
        stats.lease(START - 1, 5_000 * MS); // before the start: left out
        stats.baseline(new MinuteStats.Sample(0, 0, 1_000, 10));
        stats.sample(0, new MinuteStats.Sample(100, 5_000, 2_000, 110));
        stats.sample(1, new MinuteStats.Sample(50_000, 120_000, 5_002_000, 160));

        List<MinuteStats.Minute> minutes = stats.minutes(2_000);

        assertThat(minutes).hasSize(2);
        MinuteStats.Minute first = minutes.get(0);
        assertThat(first.index()).isZero();
        assertThat(first.p50Millis()).isCloseTo(50, within(0.1));
        assertThat(first.p99Millis()).isCloseTo(99, within(0.1));
        assertThat(first.delivered()).isEqualTo(100);
        assertThat(first.keptUp()).as("100 pending at 2,000/s").isTrue();
        assertThat(first.deadTuples()).isEqualTo(5_000);
        assertThat(first.entriesPerScan()).as("1,000 entries in 100 scans").isEqualTo(10.0);
        assertThat(first.leaseMillis()).isEqualTo(3.0);
        assertThat(first.leaseMaxMillis()).isEqualTo(4.0);
        assertThat(first.leases()).isEqualTo(2);

        MinuteStats.Minute second = minutes.get(1);
        assertThat(second.p99Millis()).isCloseTo(99_000, within(100.0));
        assertThat(second.keptUp())
                .as("50,000 pending is more than two seconds' worth")
                .isFalse();
        assertThat(second.entriesPerScan()).as("5,000,000 entries in 50 scans").isEqualTo(100_000.0);
        assertThat(second.leases()).isEqualTo(1);
    }

    @Test
    void undeliveredEventsCountWithTheTimeTheyHadWaitedAndAnIntervalWithoutScansHasNoEntriesPerScan() {
        MinuteStats stats = new MinuteStats(START, MINUTE);
        stats.delivered(START, START + 10 * MS);
        stats.undelivered(START + MS, START + 500_000 * MS);
        stats.sample(0, new MinuteStats.Sample(0, 0, 0, 0));

        MinuteStats.Minute minute = stats.minutes(2_000).get(0);

        assertThat(minute.delivered()).isEqualTo(1);
        assertThat(minute.censored()).isEqualTo(1);
        assertThat(minute.p99Millis()).isGreaterThan(400_000);
        assertThat(minute.entriesPerScan()).isNaN();
        assertThat(minute.leaseMillis()).isNaN();
        assertThat(stats.deliveredAndCensored()).containsExactly(1, 1);
        assertThat(stats.wholeRunMillis()[1]).isGreaterThan(400_000);
    }

    @Test
    void intervalsAreCountedFromTheStart() {
        MinuteStats stats = new MinuteStats(START, MINUTE);

        assertThat(stats.interval(START)).isZero();
        assertThat(stats.interval(START + MINUTE - 1)).isZero();
        assertThat(stats.interval(START + MINUTE)).isEqualTo(1);
        assertThat(stats.interval(START - 1)).isEqualTo(-1);
        assertThat(stats.end(0)).isEqualTo(START + MINUTE);
    }
}
