package dev.outboxjava.benchmarks.internal;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.LongConsumer;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;

/**
 * The stop-the-world collections of one JVM, each with the time it was reported, so a measured
 * stretch can say how often and how long its JVMs stood still. Scenario 4's slowest events wait out
 * such pauses: the relay, the producers and the consumer share {@link #BENCHMARK_JVM}, and every
 * publish waits for the broker's JVM ({@link #BROKER_JVM}). Thread-safe.
 */
public final class GcPauses {

    /** This JVM: producers, relay and consumer. Recording starts with {@link #recordThisJvm()}. */
    public static final GcPauses BENCHMARK_JVM = new GcPauses("benchmark JVM");
    /** The Kafka broker's JVM, as it reports its pauses on its standard output ({@link KafkaBrokerProcess}). */
    public static final GcPauses BROKER_JVM = new GcPauses("Kafka broker JVM");

    private final String name;
    /** {@code {reported at (nanoTime), duration in ms}}, in order. */
    private final List<long[]> pauses = new ArrayList<>();

    private volatile boolean recording;

    GcPauses(String name) {
        this.name = name;
    }

    /** Records this JVM's pauses into {@link #BENCHMARK_JVM} from now on. */
    public static void recordThisJvm() {
        BENCHMARK_JVM.recording = true;
        listen(millis -> BENCHMARK_JVM.record(System.nanoTime(), millis));
    }

    /** From now on the pauses of another JVM arrive by {@link #record}: it is reported on. */
    public void expectReports() {
        recording = true;
    }

    /**
     * Calls {@code onPause} with the duration in ms of each stop-the-world collection of this JVM from
     * now on (on a JMX notification thread, shortly after the pause).
     */
    public static void listen(LongConsumer onPause) {
        for (GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (collector instanceof NotificationEmitter emitter) {
                emitter.addNotificationListener(
                        (notification, handback) -> {
                            if (notification
                                    .getType()
                                    .equals(GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION)) {
                                GarbageCollectionNotificationInfo info = GarbageCollectionNotificationInfo.from(
                                        (CompositeData) notification.getUserData());
                                if (isPause(info.getGcName())) {
                                    onPause.accept(info.getGcInfo().getDuration());
                                }
                            }
                        },
                        null,
                        null);
            }
        }
    }

    /**
     * Whether a collector's notifications are pauses: G1's young and full collections are; the
     * concurrent collectors (ZGC, Shenandoah) also report whole cycles, under a name ending in "Cycles",
     * most of which the application runs through.
     */
    static boolean isPause(String collectorName) {
        return !collectorName.endsWith("Cycles");
    }

    /** Notes a pause of {@code millis} ms reported at {@code atNanos} ({@link System#nanoTime()}). */
    public synchronized void record(long atNanos, long millis) {
        pauses.add(new long[] {atNanos, millis});
    }

    /** The pauses reported from {@code fromNanos} up to {@code toNanos}. */
    public synchronized Window between(long fromNanos, long toNanos) {
        int count = 0;
        long total = 0;
        long longest = 0;
        for (long[] pause : pauses) {
            if (pause[0] >= fromNanos && pause[0] <= toNanos) {
                count++;
                total += pause[1];
                longest = Math.max(longest, pause[1]);
            }
        }
        return new Window(name, recording, count, total, longest);
    }

    /** The pauses of one JVM in one stretch. */
    public record Window(String jvm, boolean recorded, int count, long totalMillis, long longestMillis) {

        /** E.g. {@code benchmark JVM 7, longest 14 ms, 62 ms in all}; {@code ""} when the JVM was not watched. */
        public String describe() {
            if (!recorded) {
                return "";
            }
            return count == 0
                    ? jvm + " none"
                    : String.format(
                            Locale.ROOT, "%s %d, longest %d ms, %d ms in all", jvm, count, longestMillis, totalMillis);
        }
    }

    /** Both JVMs' pauses from {@code fromNanos} to {@code toNanos}, e.g. for a log line or a table cell. */
    public static String describeBoth(long fromNanos, long toNanos) {
        String benchmark = BENCHMARK_JVM.between(fromNanos, toNanos).describe();
        String broker = BROKER_JVM.between(fromNanos, toNanos).describe();
        String both = broker.isEmpty() ? benchmark : benchmark.isEmpty() ? broker : benchmark + "; " + broker;
        return both.isEmpty() ? "GC pauses not recorded" : "stop-the-world GC pauses: " + both;
    }
}
