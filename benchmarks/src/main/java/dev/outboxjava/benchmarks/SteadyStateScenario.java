package dev.outboxjava.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.outboxjava.benchmarks.internal.Brokers;
import dev.outboxjava.benchmarks.internal.BusinessWork;
import dev.outboxjava.benchmarks.internal.CpuBreakdown;
import dev.outboxjava.benchmarks.internal.CpuWaits;
import dev.outboxjava.benchmarks.internal.GcPauses;
import dev.outboxjava.benchmarks.internal.InterleavedLoad;
import dev.outboxjava.benchmarks.internal.LatencyConsumer;
import dev.outboxjava.benchmarks.internal.OutboxTables;
import dev.outboxjava.benchmarks.internal.ProducerLoad;
import dev.outboxjava.benchmarks.internal.Services;
import dev.outboxjava.benchmarks.internal.TickTimings;
import dev.outboxjava.benchmarks.internal.WorkerRun;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.postgres.OutboxNotificationListener;
import dev.outboxjava.postgres.OutboxNotifier;
import dev.outboxjava.postgres.OutboxWriter;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.postgres.WakeUpMode;
import dev.outboxjava.worker.OutboxWakeUp;
import dev.outboxjava.worker.OutboxWorker;
import dev.outboxjava.worker.WakeUpSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.HdrHistogram.Histogram;

/**
 * Scenario 4, steady state: producers commit events at a fixed rate while the worker relays them to
 * Kafka and a consumer notes their arrival; commit → consume latency percentiles and whether the
 * backlog stayed flat, once per wake-up choice. Then what each wake-up costs the producers:
 * saturated producers with the wake-up's mechanism in place (an {@link OutboxNotifier} signalled after
 * each commit; the trigger; a call to the worker's {@link OutboxWakeUp#signal()} after each commit;
 * nothing; a listener on the notifications all along) against polling only.
 */
public final class SteadyStateScenario {

    /** The worker's wake-up choices. */
    public enum WakeUp {
        NOTIFY_AFTER_COMMIT("NOTIFY after commit"),
        TRIGGER_NOTIFY("trigger NOTIFY"),
        IN_PROCESS_SIGNAL("in-process signal"),
        POLLING_ONLY("polling only");

        private final String display;

        WakeUp(String display) {
            this.display = display;
        }

        public String display() {
            return display;
        }
    }

    /** Latency and backlog of one steady run. */
    public record Latency(
            double p50Millis,
            double p95Millis,
            double p99Millis,
            double maxMillis,
            long measured,
            long missing,
            long maxPendingSecondHalf,
            long pendingAtEnd,
            boolean flat,
            double achievedRate,
            String cpu,
            String gcPauses,
            String cpuWaits) {}

    /**
     * Everything scenario 4 measured: latency at the asked rate per wake-up, the same at a quarter of
     * that rate for the wake-ups that meet the latency target's premise (is the relay's own path fast
     * when the machine has CPU to spare?), and the producers' throughput per wake-up mechanism.
     */
    public record Result(
            Map<WakeUp, List<Latency>> latency,
            int headroomRate,
            Map<WakeUp, Latency> headroom,
            Map<WakeUp, List<Double>> producerTps) {}

    /**
     * The run whose p99 is the median of {@code runs} (of an even number, the worse of the middle two):
     * its figures are reported together, so p50, p95 and p99 come from one run.
     */
    static Latency medianByP99(List<Latency> runs) {
        List<Latency> sorted = new ArrayList<>(runs);
        sorted.sort(Comparator.comparingDouble(Latency::p99Millis));
        return sorted.get(sorted.size() / 2);
    }

    /** The wake-ups also measured at a quarter of the rate (and warmed up first): the default and the in-process signal. */
    static final List<WakeUp> HEADROOM_WAKE_UPS = List.of(WakeUp.NOTIFY_AFTER_COMMIT, WakeUp.IN_PROCESS_SIGNAL);

    private static final Duration WARM_UP = Duration.ofSeconds(2);
    private static final Duration STEADY_WARM_UP = Duration.ofSeconds(6);
    private static final Duration WARM_UP_LIMIT = Duration.ofSeconds(150);
    private static final Duration DELIVERY_LIMIT = Duration.ofSeconds(60);

    private final Services services;
    private final OutboxTables tables;
    private final Brokers brokers;
    private final BenchmarkConfig options;

    public SteadyStateScenario(Services services, OutboxTables tables, Brokers brokers, BenchmarkConfig options) {
        this.services = services;
        this.tables = tables;
        this.brokers = brokers;
        this.options = options;
    }

    /**
     * Each wake-up runs {@code --runs} times at the asked rate, the wake-ups taking turns in a new order
     * each time ({@link #roundOrder}), so a slow minute of the machine does not fall on one of them only.
     */
    public Result run() {
        Map<WakeUp, List<Latency>> latency = new EnumMap<>(WakeUp.class);
        warmUp();
        for (int run = 0; run < options.runs(); run++) {
            for (WakeUp wakeUp : roundOrder(run)) {
                latency.computeIfAbsent(wakeUp, w -> new ArrayList<>())
                        .add(logged(wakeUp, steady(wakeUp, options.steadyTime(), options.steadyRate())));
            }
        }
        int headroomRate = Math.max(1, options.steadyRate() / 4);
        Map<WakeUp, Latency> headroom = new EnumMap<>(WakeUp.class);
        for (WakeUp wakeUp : HEADROOM_WAKE_UPS) {
            headroom.put(wakeUp, logged(wakeUp, steady(wakeUp, options.steadyTime(), headroomRate)));
        }
        return new Result(latency, headroomRate, headroom, producerCost());
    }

    /**
     * Unmeasured steady runs, alternating the wake-ups that have code of their own (notifier and
     * listener, or the in-process signal), until the JIT compiler has gone quiet ({@link JitWarmUp}).
     */
    private void warmUp() {
        JitWarmUp.untilQuiet("S4", HEADROOM_WAKE_UPS.size(), WARM_UP_LIMIT, round -> {
            WakeUp wakeUp = HEADROOM_WAKE_UPS.get(round % HEADROOM_WAKE_UPS.size());
            Latency l = steady(wakeUp, STEADY_WARM_UP, options.steadyRate());
            return String.format(
                    Locale.ROOT,
                    "%s for %d s: p50 %.1f ms, p99 %.1f ms; %s; %s; %s",
                    wakeUp.display(),
                    STEADY_WARM_UP.toSeconds(),
                    l.p50Millis(),
                    l.p99Millis(),
                    l.cpu(),
                    l.gcPauses(),
                    l.cpuWaits());
        });
    }

    private static Latency logged(WakeUp wakeUp, Latency l) {
        Log.line(
                "S4 %s: p50 %.1f ms, p95 %.1f ms, p99 %.1f ms, max %.1f ms (%,d events, %d missing, %,.0f/s); "
                        + "pending max %,d in 2nd half, %,d at end -> %s; %s; %s; %s",
                wakeUp.display(),
                l.p50Millis(),
                l.p95Millis(),
                l.p99Millis(),
                l.maxMillis(),
                l.measured(),
                l.missing(),
                l.achievedRate(),
                l.maxPendingSecondHalf(),
                l.pendingAtEnd(),
                l.flat() ? "flat" : "NOT flat at the rate",
                l.cpu(),
                l.gcPauses(),
                l.cpuWaits());
        return l;
    }

    private Latency steady(WakeUp wakeUp, Duration duration, int rate) {
        String topic = services.newTopic("steady-" + wakeUp.name().toLowerCase().replace('_', '-'), 6);
        int producers = pacedProducers(options);
        try (HikariDataSource pool = services.newPool("steady", producers + options.relayThreads() + 4)) {
            PostgresOutboxStore store = tables.create("steady", CompletionMode.KEEP_SENT, schemaMode(wakeUp), pool);
            BusinessWork business = BusinessWork.create(services);
            OutboxWriter writer = store.writer();
            OutboxNotifier notifier =
                    OutboxNotifier.builder(pool, store.config().notifyChannel()).start();
            List<WakeUpSource> sources = wakeUp == WakeUp.TRIGGER_NOTIFY || wakeUp == WakeUp.NOTIFY_AFTER_COMMIT
                    ? List.of(signal -> OutboxNotificationListener.builder(
                                    pool, store.config().notifyChannel(), signal::signal)
                            .start())
                    : List.of();
            TickTimings timings = new TickTimings();
            OutboxWorker worker = WorkerRun.worker(
                    timings.wrap(store),
                    timings.wrap(brokers.newPublisher(Brokers.Kind.KAFKA)),
                    options.relayThreads(),
                    options.batchSize(),
                    Duration.ofSeconds(1),
                    new WorkerRun.PublishedCounter(),
                    sources);
            Map<UUID, Long> committedAt = new ConcurrentHashMap<>();
            List<long[]> pendingSamples = new ArrayList<>();
            try (LatencyConsumer consumer = new LatencyConsumer(services.kafkaBootstrapServers(), topic, 6)) {
                worker.start();
                OutboxWakeUp signal = worker.wakeUp();
                long start = System.nanoTime();
                Thread sampler = sampler(pool, store.config().tableName(), start, pendingSamples);
                CpuBreakdown cpu = CpuBreakdown.start();
                CpuWaits waits = CpuWaits.start();
                double achieved = ProducerLoad.paced(
                        pool,
                        producers,
                        duration,
                        rate,
                        connection -> {
                            business.insertOrder(connection);
                            OutboxEvent event = BusinessWork.event(topic);
                            writer.append(connection, List.of(event));
                            return event.id();
                        },
                        (id, at) -> {
                            committedAt.put((UUID) id, at);
                            if (wakeUp == WakeUp.IN_PROCESS_SIGNAL) {
                                signal.signal();
                            } else if (wakeUp == WakeUp.NOTIFY_AFTER_COMMIT) {
                                notifier.signal();
                            }
                        });
                String cpuUse = cpu.shareOfMachine(Map.of("benchmark producers", ProducerLoad.lastCpuNanos()));
                String cpuWaits = waits.describe();
                sampler.interrupt();
                sampler.join();
                long deadline = System.nanoTime() + DELIVERY_LIMIT.toNanos();
                while (consumer.received().size() < committedAt.size() && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                // the pauses that measured events could meet: from the end of the warm-up to the last delivery
                long measuredFrom = start + WARM_UP.toNanos();
                String gcPauses = GcPauses.describeBoth(measuredFrom, System.nanoTime());
                Log.line(
                        "S4 %s at %,d/s relay ticks: %s; %s",
                        wakeUp.display(),
                        rate,
                        timings.describe(),
                        timings.stages(committedAt, consumer.received(), measuredFrom, 99));
                return latency(
                        start,
                        duration,
                        rate,
                        committedAt,
                        consumer.received(),
                        pendingSamples,
                        achieved,
                        cpuUse,
                        gcPauses,
                        cpuWaits);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            } finally {
                notifier.close();
                worker.close();
                tables.truncate(store);
            }
        }
    }

    private static WakeUpMode schemaMode(WakeUp wakeUp) {
        return wakeUp == WakeUp.TRIGGER_NOTIFY ? WakeUpMode.TRIGGER_NOTIFY : WakeUpMode.NONE;
    }

    /** Twice the saturating producers: a paced producer that falls behind must have company to catch up. */
    static int pacedProducers(BenchmarkConfig options) {
        return options.producers() * 2;
    }

    private static Latency latency(
            long start,
            Duration duration,
            int rate,
            Map<UUID, Long> committedAt,
            Map<UUID, Long> received,
            List<long[]> pendingSamples,
            double achieved,
            String cpu,
            String gcPauses,
            String cpuWaits) {
        Histogram histogram = new Histogram(3_600_000_000L, 3);
        long warmUpEnd = start + WARM_UP.toNanos();
        long missing = 0;
        for (Map.Entry<UUID, Long> entry : committedAt.entrySet()) {
            Long at = received.get(entry.getKey());
            if (at == null) {
                missing++;
            } else if (entry.getValue() >= warmUpEnd) {
                histogram.recordValue(Math.max(0, (at - entry.getValue()) / 1_000));
            }
        }
        long half = start + duration.toNanos() / 2;
        long maxSecondHalf = 0;
        long last = 0;
        synchronized (pendingSamples) {
            for (long[] sample : pendingSamples) {
                if (sample[0] >= half) {
                    maxSecondHalf = Math.max(maxSecondHalf, sample[1]);
                }
                last = sample[1];
            }
        }
        // Flat: the producers kept the asked rate (95 %), never more than two seconds' worth of events
        // waited in the second half, and none was lost.
        boolean flat = achieved >= 0.95 * rate && maxSecondHalf <= 2L * rate && missing == 0;
        return new Latency(
                histogram.getValueAtPercentile(50) / 1000.0,
                histogram.getValueAtPercentile(95) / 1000.0,
                histogram.getValueAtPercentile(99) / 1000.0,
                histogram.getMaxValue() / 1000.0,
                histogram.getTotalCount(),
                missing,
                maxSecondHalf,
                last,
                flat,
                achieved,
                cpu,
                gcPauses,
                cpuWaits);
    }

    private static Thread sampler(HikariDataSource pool, String table, long start, List<long[]> samples) {
        Thread thread = new Thread(
                () -> {
                    try (Connection connection = pool.getConnection();
                            Statement statement = connection.createStatement()) {
                        while (!Thread.currentThread().isInterrupted()) {
                            try (ResultSet rs = statement.executeQuery(
                                    "SELECT count(*) FROM " + table + " WHERE status = 'pending'")) {
                                rs.next();
                                synchronized (samples) {
                                    samples.add(new long[] {System.nanoTime(), rs.getLong(1)});
                                }
                            }
                            Thread.sleep(250);
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    } catch (SQLException e) {
                        Log.line("S4 backlog sampler failed: %s", e.getMessage());
                    }
                },
                "bench-backlog-sampler");
        thread.start();
        return thread;
    }

    /**
     * Saturated producer throughput with each wake-up mechanism in place; one entry per round.
     *
     * <p>One continuous load, the mechanism switched every {@linkplain #producerCostPhase phase}
     * ({@link InterleavedLoad}): a transaction appends to the trigger's table in the trigger's phases
     * and signals as the phase it began in asks.
     *
     * <p>The trigger and the notifier send on the same channel, and one listener LISTENs on it all
     * along: PostgreSQL (15 here) signals every listening backend of the database on each
     * notification, whatever its channel, so a second listener would bill each mechanism for the other's.
     */
    private Map<WakeUp, List<Double>> producerCost() {
        try (HikariDataSource pool = services.newPool("wakeup-cost", options.producers() + 3)) {
            PostgresOutboxStore notifying =
                    tables.create("wake_notify", CompletionMode.KEEP_SENT, WakeUpMode.TRIGGER_NOTIFY, pool);
            PostgresOutboxStore silent = tables.create("wake_none", CompletionMode.KEEP_SENT, WakeUpMode.NONE, pool);
            String channel = notifying.config().notifyChannel();
            BusinessWork business = BusinessWork.create(services);
            // the worker is not started: the producer pays only for the signal() call itself
            OutboxWorker idle = WorkerRun.worker(
                    silent,
                    new Brokers.AcknowledgingPublisher(),
                    1,
                    options.batchSize(),
                    Duration.ofSeconds(1),
                    new WorkerRun.PublishedCounter(),
                    List.of());
            OutboxWakeUp signal = idle.wakeUp();
            AtomicLong notified = new AtomicLong();
            try (OutboxNotifier notifier = OutboxNotifier.builder(pool, channel).start();
                    OutboxNotificationListener listener = listening(pool, channel, notified)) {
                OutboxWriter triggering = notifying.writer();
                OutboxWriter plain = silent.writer();
                return new InterleavedLoad<>(
                                WakeUp.class,
                                "S4 producer cost",
                                producerCostPhase(options),
                                producerCostRounds(options),
                                ProducerOverheadScenario.WARM_UP)
                        .run(
                                pool,
                                options.producers(),
                                (wakeUp, connection) -> {
                                    business.insertOrder(connection);
                                    (wakeUp == WakeUp.TRIGGER_NOTIFY ? triggering : plain)
                                            .append(connection, List.of(BusinessWork.event("orders")));
                                },
                                wakeUp -> {
                                    if (wakeUp == WakeUp.IN_PROCESS_SIGNAL) {
                                        signal.signal();
                                    } else if (wakeUp == WakeUp.NOTIFY_AFTER_COMMIT) {
                                        notifier.signal();
                                    }
                                })
                        .tps();
            } finally {
                idle.close();
                tables.truncate(notifying);
                tables.truncate(silent);
                Log.line("S4 producer cost: the listener was woken %,d times", notified.get());
            }
        }
    }

    /** A listener on the channel, LISTENing before it is returned. */
    private static OutboxNotificationListener listening(DataSource pool, String channel, AtomicLong notified) {
        OutboxNotificationListener listener = OutboxNotificationListener.builder(
                        pool, channel, notified::incrementAndGet)
                .start();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!listener.isListening()) {
            if (System.nanoTime() > deadline) {
                listener.close();
                throw new IllegalStateException("the listener on " + channel + " did not LISTEN within 30 s");
            }
            LockSupport.parkNanos(Duration.ofMillis(5).toNanos());
        }
        return listener;
    }

    /**
     * Rounds of the producer-cost measurement: 32 per run (96 by default: 96 s of load in all). A cost
     * of a few percent is a difference between two noisy rates; the median of many close pairs
     * narrows it more than a few far apart.
     */
    static int producerCostRounds(BenchmarkConfig options) {
        return options.runs() * 32;
    }

    /** Each wake-up's phase of a producer-cost round: as long as scenario 5's. */
    static Duration producerCostPhase(BenchmarkConfig options) {
        return ProducerOverheadScenario.phase(options);
    }

    /** The wake-ups in the order steady run {@code round} measures them ({@link InterleavedLoad#order}). */
    static List<WakeUp> roundOrder(int round) {
        return InterleavedLoad.order(WakeUp.values(), round);
    }
}
