package dev.outboxjava.benchmarks.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class CpuWaitsTest {

    private static final Pattern RELAY_WAIT = Pattern.compile("relay threads (\\d+\\.\\d+) ms");

    @Test
    void aSchedstatLineGivesTheRunQueueWaitAndTheCpuGrants() {
        assertThat(CpuWaits.parseSchedstat("183084923 13500611 355\n")).contains(new CpuWaits.Waits(13_500_611, 355));
        assertThat(CpuWaits.parseSchedstat("")).isEmpty();
        assertThat(CpuWaits.parseSchedstat("1 2")).isEmpty();
    }

    @Test
    void thePressureTotalIsTheSomeLines() {
        String text = "some avg10=0.59 avg60=11.67 avg300=39.80 total=930026770\n"
                + "full avg10=0.00 avg60=0.00 avg300=0.00 total=12\n";

        assertThat(CpuWaits.parsePressureTotal(text)).hasValue(930_026_770);
        assertThat(CpuWaits.parsePressureTotal("")).isEmpty();
    }

    @Test
    void relayThreadsThatOutnumberTheCoresAreReportedWaiting() throws InterruptedException {
        assumeTrue(
                Files.exists(Path.of("/proc/self/task")) && Files.exists(Path.of("/proc/self/schedstat")),
                "needs Linux scheduler statistics");
        CpuWaits waits = CpuWaits.start();
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> spinners = new ArrayList<>();
        // more runnable threads than cores: each has to wait for a CPU now and then
        for (int i = 0; i < Runtime.getRuntime().availableProcessors() + 2; i++) {
            Thread spinner = new Thread(
                    () -> {
                        while (!stop.get()) {
                            Thread.onSpinWait();
                        }
                    },
                    "outbox-relay-test-" + i);
            spinner.start();
            spinners.add(spinner);
        }
        try {
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                String report = waits.describe();
                Matcher relay = RELAY_WAIT.matcher(report);
                assertThat(relay.find()).as(report).isTrue();
                assertThat(Double.parseDouble(relay.group(1))).as(report).isPositive();
                assertThat(report).startsWith("waiting for a CPU: ");
            });
        } finally {
            stop.set(true);
            for (Thread spinner : spinners) {
                spinner.join();
            }
        }
    }
}
