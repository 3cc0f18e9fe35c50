package dev.outboxjava.benchmarks.internal;

import com.sun.management.OperatingSystemMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Where the CPU of a measured stretch went, per event: this JVM's threads grouped by name (relay,
 * publisher client, everything else — mostly the Kafka broker when it runs in this JVM), and the
 * PostgreSQL and RabbitMQ server processes and the broker's own JVM read from {@code /proc} (the
 * services run on this machine). On 2 cores every CPU-microsecond the broker or the JVM spends is one
 * the database cannot.
 */
public final class CpuBreakdown {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final OperatingSystemMXBean JVM =
            (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    /** Clock ticks per second of /proc/[pid]/stat times (USER_HZ, 100 on Linux). */
    private static final double TICKS_PER_SECOND = 100;

    static final String JVM_INTERNAL = "JIT compiler and GC";
    /** The group of a Kafka broker running in a JVM of its own ({@link KafkaBrokerProcess}). */
    public static final String KAFKA_BROKER_JVM = "Kafka broker (own JVM)";
    /** Processes of the benchmark's own to report by name, by process id. */
    private static final Map<Long, String> WATCHED = new ConcurrentHashMap<>();

    private static volatile String otherThreads = "other JVM threads";

    private final Map<Long, Long> threadCpuAtStart;
    private final Map<String, Long> processTicksAtStart;
    private final long jvmCpuAtStart;
    private final long[] machineTicksAtStart;
    private final long startedNanos;

    private CpuBreakdown(Map<Long, Long> threadCpuAtStart, Map<String, Long> processTicksAtStart) {
        this.threadCpuAtStart = threadCpuAtStart;
        this.processTicksAtStart = processTicksAtStart;
        this.jvmCpuAtStart = JVM.getProcessCpuTime();
        this.machineTicksAtStart = machineTicks();
        this.startedNanos = System.nanoTime();
    }

    /** Reports process {@code pid}'s CPU under {@code group} from now on (a child process of the benchmark). */
    public static void watchProcess(long pid, String group) {
        WATCHED.put(pid, group);
    }

    /** From now on, this JVM's unnamed threads include a Kafka broker's: the report says so. */
    public static void kafkaBrokerInThisJvm() {
        otherThreads = "other JVM threads (in-process Kafka broker, ...)";
    }

    /** Starts measuring: notes every thread's and server process's CPU time so far. */
    public static CpuBreakdown start() {
        Map<Long, Long> threads = new HashMap<>();
        for (long id : THREADS.getAllThreadIds()) {
            threads.put(id, Math.max(0, THREADS.getThreadCpuTime(id)));
        }
        return new CpuBreakdown(threads, serverTicks());
    }

    /**
     * Stops measuring (call it while the measured threads still run).
     *
     * @return e.g. {@code CPU per event: PostgreSQL 21.0 us, relay 6.1 us, ...}
     */
    public String perEvent(long events) {
        if (events <= 0) {
            return "CPU per event: n/a (nothing relayed)";
        }
        return used(Map.of()).entrySet().stream()
                .map(entry ->
                        String.format(Locale.ROOT, "%s %.1f us", entry.getKey(), entry.getValue() / 1000.0 / events))
                .collect(Collectors.joining(", ", "CPU per event: ", ""));
    }

    /**
     * Stops measuring: how busy the whole machine was, and each group's share of it (its CPU time over
     * the elapsed time times the cores), e.g. {@code machine busy 97 %: PostgreSQL 44 %, ...}.
     *
     * @param endedThreads CPU nanoseconds of threads that ran in the stretch and have ended (Java no
     *                     longer lists them), by group name
     */
    public String shareOfMachine(Map<String, Long> endedThreads) {
        double capacityNanos = (System.nanoTime() - startedNanos)
                * (double) Runtime.getRuntime().availableProcessors();
        String busy = machineBusy();
        return used(endedThreads).entrySet().stream()
                .filter(entry -> entry.getValue() / capacityNanos >= 0.005)
                .map(entry -> String.format(
                        Locale.ROOT, "%s %.0f %%", entry.getKey(), 100.0 * entry.getValue() / capacityNanos))
                .collect(Collectors.joining(", ", busy + ": ", ""));
    }

    /**
     * How busy the whole machine was since {@link #start()}, e.g. {@code machine busy 94 %}, and the
     * share the hypervisor took for other guests when it is 0.5 % or more (counted as busy: it was
     * not ours to use).
     */
    public String machineBusy() {
        long[] machine = machineTicks();
        long total = machine[1] - machineTicksAtStart[1];
        if (total <= 0) {
            return "machine busy n/a";
        }
        String busy = String.format(
                Locale.ROOT, "machine busy %.0f %%", 100.0 * (machine[0] - machineTicksAtStart[0]) / total);
        long stolen = machine[2] - machineTicksAtStart[2];
        return 200 * stolen >= total
                ? busy + String.format(Locale.ROOT, " (%.0f %% stolen by the hypervisor)", 100.0 * stolen / total)
                : busy;
    }

    /** CPU nanoseconds per group since {@link #start()}, largest first. */
    private Map<String, Long> used(Map<String, Long> endedThreads) {
        Map<String, Long> nanosByGroup = new HashMap<>(endedThreads);
        long javaThreads =
                endedThreads.values().stream().mapToLong(Long::longValue).sum();
        for (ThreadInfo info : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
            if (info == null) {
                continue;
            }
            long used = THREADS.getThreadCpuTime(info.getThreadId())
                    - threadCpuAtStart.getOrDefault(info.getThreadId(), 0L);
            if (used > 0) {
                nanosByGroup.merge(threadGroup(info.getThreadName()), used, Long::sum);
                javaThreads += used;
            }
        }
        // what the JVM spent outside the threads Java lists: JIT compilers and garbage collectors
        nanosByGroup.put(JVM_INTERNAL, Math.max(0, JVM.getProcessCpuTime() - jvmCpuAtStart - javaThreads));
        serverTicks()
                .forEach((process, now) ->
                        nanosByGroup.put(process, ticksToNanos(now - processTicksAtStart.getOrDefault(process, 0L))));
        Map<String, Long> sorted = new LinkedHashMap<>();
        nanosByGroup.entrySet().stream()
                .filter(entry -> entry.getValue() > 0)
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .forEach(entry -> sorted.put(entry.getKey(), entry.getValue()));
        return sorted;
    }

    private static long ticksToNanos(long ticks) {
        return (long) (ticks / TICKS_PER_SECOND * 1e9);
    }

    /**
     * The group of one of this JVM's threads, by its Java name or by the first 15 characters of it that
     * the kernel keeps ({@link CpuWaits} reads those).
     */
    static String threadGroup(String threadName) {
        if (threadName.startsWith("outbox-relay")) {
            return "relay threads";
        }
        if (threadName.startsWith("outbox-kafka") || threadName.startsWith("kafka-producer-")) {
            return "Kafka client";
        }
        if (threadName.startsWith("outbox-rabbitmq") || threadName.startsWith("AMQP Connection")) {
            return "RabbitMQ client";
        }
        if (threadName.startsWith(ProducerLoad.THREAD_NAME_PREFIX)) {
            return "benchmark producers";
        }
        if (threadName.startsWith("bench-consumer")) {
            return "benchmark consumer";
        }
        return otherThreads;
    }

    /** {busy, total, stolen} ticks of the whole machine from /proc/stat; zeros where it is unreadable. */
    private static long[] machineTicks() {
        try {
            String[] cpu =
                    Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            long total = 0;
            for (int i = 1; i < Math.min(cpu.length, 9); i++) { // user nice system idle iowait irq softirq steal
                total += Long.parseLong(cpu[i]);
            }
            long idle = Long.parseLong(cpu[4]) + Long.parseLong(cpu[5]);
            long steal = cpu.length > 8 ? Long.parseLong(cpu[8]) : 0;
            return new long[] {total - idle, total, steal};
        } catch (IOException | RuntimeException e) {
            return new long[] {0, 0, 0};
        }
    }

    /**
     * The group of a process on this machine by its id and command name: a PostgreSQL or RabbitMQ server
     * process, a {@linkplain #watchProcess watched} one, or null for any other.
     */
    static String processGroup(long pid, String name) {
        return name.equals("postgres") ? "PostgreSQL" : name.equals("beam.smp") ? "RabbitMQ server" : WATCHED.get(pid);
    }

    /**
     * Summed user+system ticks of the PostgreSQL and RabbitMQ processes and of the {@linkplain #watchProcess
     * watched} ones; empty where /proc is unreadable.
     */
    private static Map<String, Long> serverTicks() {
        Map<String, Long> ticks = new HashMap<>();
        forEachServerProcess((process, group) -> {
            try {
                String stat = Files.readString(process.resolve("stat"));
                String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                // fields[11] and [12] are utime and stime (fields 14 and 15 of proc(5))
                ticks.merge(group, Long.parseLong(fields[11]) + Long.parseLong(fields[12]), Long::sum);
            } catch (IOException | RuntimeException ignored) {
                // the process ended meanwhile
            }
        });
        return ticks;
    }

    /**
     * Calls {@code action} with the /proc directory and the {@linkplain #processGroup group} of every
     * process on this machine that has one; nothing where /proc is unreadable (not Linux).
     */
    static void forEachServerProcess(BiConsumer<Path, String> action) {
        try (Stream<Path> processes = Files.list(Path.of("/proc"))) {
            processes
                    .filter(path -> path.getFileName().toString().chars().allMatch(Character::isDigit))
                    .forEach(process -> {
                        try {
                            String group = processGroup(
                                    Long.parseLong(process.getFileName().toString()),
                                    Files.readString(process.resolve("comm")).strip());
                            if (group != null) {
                                action.accept(process, group);
                            }
                        } catch (IOException | RuntimeException ignored) {
                            // the process ended meanwhile
                        }
                    });
        } catch (IOException ignored) {
            // no /proc: only the JVM's own threads are reported
        }
    }
}
