package dev.outboxjava.benchmarks.internal;

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
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Where the CPU of a measured stretch went, per event: this JVM's threads grouped by name (relay,
 * publisher client, everything else — mostly the in-process Kafka broker), and the PostgreSQL and
 * RabbitMQ server processes read from {@code /proc} (the services run on this machine). On 2 cores
 * every CPU-microsecond the broker or the JVM spends is one the database cannot.
 */
public final class CpuBreakdown {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    /** Clock ticks per second of /proc/[pid]/stat times (USER_HZ, 100 on Linux). */
    private static final double TICKS_PER_SECOND = 100;

    private final Map<Long, Long> threadCpuAtStart;
    private final Map<String, Long> processTicksAtStart;

    private CpuBreakdown(Map<Long, Long> threadCpuAtStart, Map<String, Long> processTicksAtStart) {
        this.threadCpuAtStart = threadCpuAtStart;
        this.processTicksAtStart = processTicksAtStart;
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
        Map<String, Long> nanosByGroup = new LinkedHashMap<>();
        for (ThreadInfo info : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
            if (info == null) {
                continue;
            }
            long used = THREADS.getThreadCpuTime(info.getThreadId()) - threadCpuAtStart.getOrDefault(info.getThreadId(), 0L);
            if (used > 0) {
                nanosByGroup.merge(group(info.getThreadName()), used, Long::sum);
            }
        }
        Map<String, Long> ticks = serverTicks();
        ticks.forEach((process, now) -> nanosByGroup.put(process,
                (long) ((now - processTicksAtStart.getOrDefault(process, 0L)) / TICKS_PER_SECOND * 1e9)));
        if (events <= 0) {
            return "CPU per event: n/a (nothing relayed)";
        }
        return nanosByGroup.entrySet().stream()
                .filter(entry -> entry.getValue() > 0)
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .map(entry -> String.format(Locale.ROOT, "%s %.1f us", entry.getKey(),
                        entry.getValue() / 1000.0 / events))
                .collect(Collectors.joining(", ", "CPU per event: ", ""));
    }

    private static String group(String threadName) {
        if (threadName.startsWith("outbox-relay")) {
            return "relay threads";
        }
        if (threadName.startsWith("outbox-kafka") || threadName.startsWith("kafka-producer-network-thread")) {
            return "Kafka client";
        }
        if (threadName.startsWith("outbox-rabbitmq") || threadName.startsWith("AMQP Connection")) {
            return "RabbitMQ client";
        }
        return "other JVM threads (in-process Kafka broker, ...)";
    }

    /** Summed user+system ticks of the PostgreSQL and RabbitMQ processes; empty where /proc is unreadable. */
    private static Map<String, Long> serverTicks() {
        Map<String, Long> ticks = new HashMap<>();
        try (Stream<Path> processes = Files.list(Path.of("/proc"))) {
            processes.filter(path -> path.getFileName().toString().chars().allMatch(Character::isDigit))
                    .forEach(path -> {
                        try {
                            String stat = Files.readString(path.resolve("stat"));
                            String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                            String process = name.equals("postgres") ? "PostgreSQL"
                                    : name.equals("beam.smp") ? "RabbitMQ server" : null;
                            if (process != null) {
                                String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                                // fields[11] and [12] are utime and stime (fields 14 and 15 of proc(5))
                                ticks.merge(process, Long.parseLong(fields[11]) + Long.parseLong(fields[12]), Long::sum);
                            }
                        } catch (IOException | RuntimeException ignored) {
                            // the process ended meanwhile, or this is not Linux
                        }
                    });
        } catch (IOException ignored) {
            // no /proc: only the JVM's own threads are reported
        }
        return ticks;
    }
}
