package dev.outboxjava.benchmarks.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.BiConsumer;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * How long runnable threads waited for a CPU during a measured stretch: the scheduling delay each hop
 * of an event's way (database backend, relay thread, Kafka client, broker, consumer) pays on a busy
 * machine, and which no change to the relay's code can remove.
 *
 * <p>Read from Linux: {@code /proc/[pid]/task/[tid]/schedstat} gives a thread's time on a CPU, its time
 * runnable but waiting on a run queue, and how many times it got a CPU; the waiting time over that
 * count is the mean delay from becoming runnable to running. {@code /proc/pressure/cpu}'s "some" total
 * is the time at least one task waited. Groups as {@link CpuBreakdown}'s: this JVM's threads by name
 * (the kernel keeps the first 15 characters), the PostgreSQL and RabbitMQ server processes, and the
 * {@linkplain CpuBreakdown#watchProcess watched} ones such as the broker's JVM. Threads that end
 * within the stretch are not counted (the benchmark's producers end before the report). Where /proc
 * lacks these files (not Linux, or a kernel without scheduler statistics) the report says so.
 */
public final class CpuWaits {

    private static final Path PROC = Path.of("/proc");
    private static final Path PRESSURE = Path.of("/proc/pressure/cpu");
    /** HotSpot's compiler and collector threads, as the kernel names them. */
    private static final Pattern JVM_INTERNAL_THREAD =
            Pattern.compile("C[12] CompilerThre|GC Thread|G1 |VM Thread|Z[A-Z]");

    /** Waiting nanoseconds and CPU grants of one thread or group. */
    record Waits(long waitNanos, long grants) {
        static final Waits NONE = new Waits(0, 0);

        Waits plus(Waits other) {
            return new Waits(waitNanos + other.waitNanos, grants + other.grants);
        }

        Waits minus(Waits earlier) {
            return new Waits(waitNanos - earlier.waitNanos, grants - earlier.grants);
        }
    }

    /** Each thread's or process's waits at the start, keyed by its /proc path (group, then task). */
    private final Map<String, Map<Path, Waits>> atStart;

    private final OptionalLong pressureAtStart;
    private final long startedNanos;

    private CpuWaits(Map<String, Map<Path, Waits>> atStart, OptionalLong pressureAtStart) {
        this.atStart = atStart;
        this.pressureAtStart = pressureAtStart;
        this.startedNanos = System.nanoTime();
    }

    /** Starts measuring: notes every watched thread's waits so far. */
    public static CpuWaits start() {
        return new CpuWaits(tasksByGroup(), pressureMicros());
    }

    /**
     * Stops measuring (call it while the measured threads still run), e.g. {@code waiting for a CPU:
     * some task 46 % of the time; per CPU grant PostgreSQL 0.41 ms, relay threads 0.30 ms, ...}: every
     * group that ran in the stretch, the longest mean wait first.
     */
    public String describe() {
        Map<String, Map<Path, Waits>> now = tasksByGroup();
        Map<String, Waits> byGroup = new HashMap<>();
        now.forEach((group, tasks) -> tasks.forEach((task, waits) -> {
            // a task that started within the stretch counts from zero
            Waits since = waits.minus(atStart.getOrDefault(group, Map.of()).getOrDefault(task, Waits.NONE));
            if (since.grants() > 0 && since.waitNanos() >= 0) {
                byGroup.merge(group, since, Waits::plus);
            }
        }));
        String pressure = pressureShare();
        if (byGroup.isEmpty()) {
            return "waiting for a CPU: n/a (no scheduler statistics in /proc)"
                    + (pressure.isEmpty() ? "" : "; " + pressure);
        }
        return byGroup.entrySet().stream()
                .sorted((a, b) -> Double.compare(meanMillis(b.getValue()), meanMillis(a.getValue())))
                .map(entry -> String.format(Locale.ROOT, "%s %.2f ms", entry.getKey(), meanMillis(entry.getValue())))
                .collect(Collectors.joining(
                        ", ",
                        "waiting for a CPU: " + (pressure.isEmpty() ? "" : pressure + "; ") + "per CPU grant ",
                        ""));
    }

    private String pressureShare() {
        OptionalLong now = pressureMicros();
        long elapsedMicros = (System.nanoTime() - startedNanos) / 1_000;
        if (now.isEmpty() || pressureAtStart.isEmpty() || elapsedMicros <= 0) {
            return "";
        }
        return String.format(
                Locale.ROOT,
                "some task %.0f %% of the time",
                100.0 * (now.getAsLong() - pressureAtStart.getAsLong()) / elapsedMicros);
    }

    private static double meanMillis(Waits waits) {
        return waits.grants() == 0 ? 0 : waits.waitNanos() / 1e6 / waits.grants();
    }

    /** The waits of every thread of this JVM and every reported server process, by group and /proc path. */
    private static Map<String, Map<Path, Waits>> tasksByGroup() {
        Map<String, Map<Path, Waits>> groups = new HashMap<>();
        forEachTask(
                PROC.resolve("self"),
                (task, name) -> put(
                        groups,
                        JVM_INTERNAL_THREAD.matcher(name).lookingAt()
                                ? CpuBreakdown.JVM_INTERNAL
                                : CpuBreakdown.threadGroup(name),
                        task));
        CpuBreakdown.forEachServerProcess(
                (process, group) -> forEachTask(process, (task, name) -> put(groups, group, task)));
        return groups;
    }

    private static void put(Map<String, Map<Path, Waits>> groups, String group, Path task) {
        parseSchedstat(read(task.resolve("schedstat")))
                .ifPresent(waits ->
                        groups.computeIfAbsent(group, g -> new HashMap<>()).put(task, waits));
    }

    /** Calls {@code visitor} with each thread's /proc directory and kernel name. */
    private static void forEachTask(Path process, BiConsumer<Path, String> visitor) {
        try (Stream<Path> tasks = Files.list(process.resolve("task"))) {
            tasks.forEach(
                    task -> visitor.accept(task, read(task.resolve("comm")).strip()));
        } catch (IOException | RuntimeException ignored) {
            // the process ended meanwhile
        }
    }

    /**
     * A schedstat line: nanoseconds on a CPU, nanoseconds waiting on a run queue, CPU grants; empty
     * when the text is not one.
     */
    static Optional<Waits> parseSchedstat(String line) {
        String[] fields = line.strip().split("\\s+");
        if (fields.length < 3) {
            return Optional.empty();
        }
        try {
            return Optional.of(new Waits(Long.parseLong(fields[1]), Long.parseLong(fields[2])));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** The "some" line's total (microseconds some task waited) of a /proc/pressure/cpu text. */
    static OptionalLong parsePressureTotal(String text) {
        for (String line : text.split("\n")) {
            if (line.startsWith("some ")) {
                int at = line.indexOf("total=");
                if (at >= 0) {
                    try {
                        return OptionalLong.of(Long.parseLong(
                                line.substring(at + "total=".length()).strip()));
                    } catch (NumberFormatException e) {
                        return OptionalLong.empty();
                    }
                }
            }
        }
        return OptionalLong.empty();
    }

    private static OptionalLong pressureMicros() {
        return parsePressureTotal(read(PRESSURE));
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }
}
