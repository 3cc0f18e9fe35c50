package dev.outboxjava.benchmarks.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class GcPausesTest {

    @Test
    void aWindowCountsThePausesReportedWithinItBoundsIncluded() {
        GcPauses pauses = new GcPauses("test JVM");
        pauses.expectReports();
        pauses.record(100, 5);
        pauses.record(200, 30);
        pauses.record(300, 7);
        pauses.record(400, 50);

        GcPauses.Window window = pauses.between(200, 300);

        assertThat(window.count()).isEqualTo(2);
        assertThat(window.longestMillis()).isEqualTo(30);
        assertThat(window.totalMillis()).isEqualTo(37);
        assertThat(window.describe()).isEqualTo("test JVM 2, longest 30 ms, 37 ms in all");
        assertThat(pauses.between(500, 600).describe()).isEqualTo("test JVM none");
    }

    @Test
    void aJvmNobodyReportsOnIsLeftOutRatherThanShownWithoutPauses() {
        GcPauses unwatched = new GcPauses("broker JVM");

        assertThat(unwatched.between(0, Long.MAX_VALUE).describe()).isEmpty();
    }

    @Test
    void wholeCyclesOfConcurrentCollectorsAreNotPauses() {
        assertThat(GcPauses.isPause("G1 Young Generation")).isTrue();
        assertThat(GcPauses.isPause("G1 Old Generation")).isTrue();
        assertThat(GcPauses.isPause("ZGC Pauses")).isTrue();
        assertThat(GcPauses.isPause("ZGC Cycles")).isFalse();
        assertThat(GcPauses.isPause("Shenandoah Cycles")).isFalse();
    }

    @Test
    void thisJvmsCollectionsAreReported() {
        AtomicInteger reported = new AtomicInteger();
        GcPauses.listen(millis -> {
            if (millis >= 0) {
                reported.incrementAndGet();
            }
        });

        System.gc();

        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(reported).hasPositiveValue());
    }
}
