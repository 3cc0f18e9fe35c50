package dev.outboxjava.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.outboxjava.benchmarks.internal.Brokers;
import dev.outboxjava.benchmarks.internal.BusinessWork;
import dev.outboxjava.benchmarks.internal.CpuBreakdown;
import dev.outboxjava.benchmarks.internal.FloorSender;
import dev.outboxjava.benchmarks.internal.GcPauses;
import dev.outboxjava.benchmarks.internal.LatencyConsumer;
import dev.outboxjava.benchmarks.internal.MinuteStats;
import dev.outboxjava.benchmarks.internal.OutboxTables;
import dev.outboxjava.benchmarks.internal.ProducerLoad;
import dev.outboxjava.benchmarks.internal.Services;
import dev.outboxjava.benchmarks.internal.StageBreakdown;
import dev.outboxjava.benchmarks.internal.TickTimings;
import dev.outboxjava.benchmarks.internal.WorkerRun;
import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.CompletionMode;
import dev.outboxjava.postgres.OutboxNotificationListener;
import dev.outboxjava.postgres.OutboxNotifier;
import dev.outboxjava.postgres.OutboxWriter;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.postgres.StoreLayout;
import dev.outboxjava.postgres.WakeUpMode;
import dev.outboxjava.worker.OutboxWorker;
import dev.outboxjava.worker.WakeUpSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Scenario 9, the tail against the broker's floor: paced producers commit an order row and its event
 * while a relay on the library's defaults (threads, batch, poll interval, NOTIFY after commit) delivers
 * to Kafka, per layout and ordering; and, in the same run at the same rates, the <b>floor</b>: the same
 * transactions, each event then sent straight to Kafka from the committing thread by a publisher with
 * the relay's producer settings, read by the same consumer — the commit → consume time no relay can beat.
 *
 * <p>Each run builds a new worker and producer, and its first interval starts with them: a service
 * restarts at every deploy, so the worker's start-up (its LISTEN session, the producer's first metadata,
 * the first leases) is part of the tail. The application's pool is open before, as a service's is
 * when it takes traffic ({@link Services#newOpenedPool}). Per interval (a minute by default) p50 and p99, and per relay run where its events'
 * time went ({@link StageBreakdown}).
 */
public final class TailLatencyScenario {

    /**
     * The floor, or a relay on the library's defaults for a layout and an ordering.
     *
     * @param threads relay threads; 0: the library's default
     */
    public record Variant(StoreLayout layout, Ordering.Mode ordering, int threads) {

        /** The broker's own floor: no relay. */
        public static final Variant FLOOR = new Variant(null, null, 0);

        public boolean floor() {
            return layout == null;
        }

        /** The library's defaults: its default layout, no ordering. */
        public boolean defaults() {
            return layout == PostgresOutboxConfig.DEFAULT_LAYOUT && ordering == Ordering.Mode.NONE;
        }

        public String label() {
            if (floor()) {
                return "floor: sent from the committing thread";
            }
            return "relay, " + (threads == 0 ? "defaults" : threads + " relay thread" + (threads == 1 ? "" : "s"))
                    + ", " + LongTransactionScenario.Comparison.layoutName(layout) + ", ordering "
                    + (ordering == Ordering.Mode.PER_KEY ? "per_key" : "none");
        }
    }

    /**
     * One run at one rate.
     *
     * @param minutes    per interval, the first starting with the worker (or the floor's producer)
     * @param p50Millis  over the whole run
     * @param p99Millis  over the whole run
     * @param maxMillis  the slowest event
     * @param stages     where the relay's events' time went; null for the floor
     */
    public record Run(
            Variant variant,
            int rate,
            List<MinuteStats.Minute> minutes,
            double p50Millis,
            double p99Millis,
            double maxMillis,
            long committed,
            long missing,
            double achievedRate,
            StageBreakdown stages,
            String gcPauses,
            String cpu) {

        /** The worst interval's p99. */
        public double worstMinuteP99() {
            return minutes.stream()
                    .mapToDouble(MinuteStats.Minute::p99Millis)
                    .filter(v -> !Double.isNaN(v))
                    .max()
                    .orElse(Double.NaN);
        }
    }

    private static final Duration DELIVERY_LIMIT = Duration.ofSeconds(60);

    /** Variants in the order of a round; the floor first, then every layout and ordering. */
    static final List<Variant> VARIANTS = List.of(
            Variant.FLOOR,
            new Variant(StoreLayout.APPEND_LOG, Ordering.Mode.NONE, 0),
            new Variant(StoreLayout.IN_PLACE, Ordering.Mode.NONE, 0),
            new Variant(StoreLayout.APPEND_LOG, Ordering.Mode.PER_KEY, 0),
            new Variant(StoreLayout.IN_PLACE, Ordering.Mode.PER_KEY, 0),
            new Variant(StoreLayout.APPEND_LOG, Ordering.Mode.NONE, 1),
            new Variant(StoreLayout.APPEND_LOG, Ordering.Mode.NONE, 2));

    private final Services services;
    private final OutboxTables tables;
    private final Brokers brokers;
    private final BenchmarkConfig options;

    public TailLatencyScenario(Services services, OutboxTables tables, Brokers brokers, BenchmarkConfig options) {
        this.services = services;
        this.tables = tables;
        this.brokers = brokers;
        this.options = options;
    }

    /** Per rate, one run of every variant (each rate's runs back to back, so the floor shares their minutes). */
    public Map<Integer, List<Run>> run() {
        Map<Integer, List<Run>> runs = new LinkedHashMap<>();
        for (int rate : options.tailRates()) {
            List<Run> atRate = new ArrayList<>();
            for (Variant variant : VARIANTS) {
                atRate.add(logged(run(variant, rate)));
            }
            runs.put(rate, atRate);
        }
        return runs;
    }

    private static Run logged(Run run) {
        for (MinuteStats.Minute m : run.minutes()) {
            Log.line(
                    "S9 %s at %,d/s, interval %d: p50 %.1f / p99 %s%.1f ms (%,d events)",
                    run.variant().label(),
                    run.rate(),
                    m.index() + 1,
                    m.p50Millis(),
                    m.censored() > 0 ? ">= " : "",
                    m.p99Millis(),
                    m.delivered());
        }
        Log.line(
                "S9 %s at %,d/s: p50 %.1f / p99 %.1f / max %.1f ms; %,d committed (%,.0f/s), %d missing; %s; %s%s",
                run.variant().label(),
                run.rate(),
                run.p50Millis(),
                run.p99Millis(),
                run.maxMillis(),
                run.committed(),
                run.achievedRate(),
                run.missing(),
                run.cpu(),
                run.gcPauses(),
                run.stages() == null ? "" : "; " + run.stages().describe());
        return run;
    }

    private Run run(Variant variant, int rate) {
        String topic = services.newTopic("tail", 6);
        int producers = SteadyStateScenario.pacedProducers(options);
        Ordering ordering = variant.ordering() == Ordering.Mode.PER_KEY
                ? Ordering.perKey(Ordering.AfterDeadLetter.HOLD_KEY)
                : Ordering.none();
        StoreLayout layout = variant.floor() ? StoreLayout.APPEND_LOG : variant.layout();
        try (HikariDataSource pool = services.newOpenedPool("tail", producers + Math.max(2, variant.threads()) + 4)) {
            PostgresOutboxStore store =
                    tables.create("tail", CompletionMode.KEEP_SENT, WakeUpMode.NONE, ordering, layout, pool);
            BusinessWork business = BusinessWork.create(services);
            OutboxWriter writer = store.writer();
            Map<UUID, Long> committedAt = new ConcurrentHashMap<>();
            AtomicLong committed = new AtomicLong();
            TickTimings timings = new TickTimings();
            try (LatencyConsumer consumer = new LatencyConsumer(services.kafkaBootstrapServers(), topic, 6);
                    Relaying relaying = variant.floor() ? null : new Relaying(store, pool, timings, variant.threads());
                    FloorSender floor = variant.floor()
                            ? new FloorSender(services.kafkaBootstrapServers(), options.kafkaProperties())
                            : null) {
                if (relaying != null) {
                    relaying.worker.start();
                }
                // the intervals start with the worker (or the floor's producer): its start-up is the first one's
                long start = System.nanoTime();
                Duration interval = options.tailInterval().compareTo(options.tailTime()) > 0
                        ? options.tailTime()
                        : options.tailInterval();
                MinuteStats stats = new MinuteStats(start, interval.toNanos());
                Thread sampler = stats.sampleEachInterval(
                        MinuteStats.intervals(options.tailTime(), interval),
                        () -> new MinuteStats.Sample(
                                Math.max(
                                        0, committed.get() - consumer.received().size()),
                                0,
                                0,
                                0),
                        "bench-tail-sampler");
                CpuBreakdown cpu = CpuBreakdown.start();
                double achieved = ProducerLoad.paced(
                        pool,
                        producers,
                        options.tailTime(),
                        rate,
                        connection -> {
                            business.insertOrder(connection);
                            OutboxEvent event = BusinessWork.event(topic);
                            writer.append(connection, List.of(event));
                            return event;
                        },
                        (result, at) -> {
                            OutboxEvent event = (OutboxEvent) result;
                            committedAt.put(event.id(), at);
                            committed.incrementAndGet();
                            if (floor != null) {
                                floor.send(event);
                            } else {
                                relaying.notifier.signal();
                            }
                        });
                String cpuUse = cpu.shareOfMachine(Map.of("benchmark producers", ProducerLoad.lastCpuNanos()));
                sampler.join();
                long deadline = System.nanoTime() + DELIVERY_LIMIT.toNanos();
                while (consumer.received().size() < committedAt.size() && System.nanoTime() < deadline) {
                    Thread.sleep(50);
                }
                long gaveUp = System.nanoTime();
                String gcPauses = GcPauses.describeBoth(start, gaveUp);
                Map<UUID, Long> received = consumer.received();
                long missing = 0;
                long max = 0;
                for (Map.Entry<UUID, Long> entry : committedAt.entrySet()) {
                    Long at = received.get(entry.getKey());
                    if (at == null) {
                        missing++;
                        stats.undelivered(entry.getValue(), gaveUp);
                    } else {
                        stats.delivered(entry.getValue(), at);
                        max = Math.max(max, at - entry.getValue());
                    }
                }
                if (relaying != null) {
                    relaying.close(); // its last marks are in the breakdown
                }
                double[] whole = stats.wholeRunMillis();
                return new Run(
                        variant,
                        rate,
                        stats.minutes(rate),
                        whole[0],
                        whole[1],
                        max / 1e6,
                        committedAt.size(),
                        missing,
                        achieved,
                        relaying == null ? null : timings.breakdown(committedAt, received, start),
                        gcPauses,
                        cpuUse);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            } finally {
                tables.truncate(store);
            }
        }
    }

    /** The relay as its documentation wires it: a worker on the library's defaults, woken by NOTIFY after commit. */
    private final class Relaying implements AutoCloseable {
        final OutboxNotifier notifier;
        final OutboxWorker worker;
        private boolean closed;

        Relaying(PostgresOutboxStore store, HikariDataSource pool, TickTimings timings, int threads) {
            String channel = store.config().notifyChannel();
            notifier = OutboxNotifier.builder(pool, channel).start();
            WakeUpSource listening = signal -> OutboxNotificationListener.builder(pool, channel, signal::signal)
                    .start();
            worker = WorkerRun.defaults(
                    timings.wrap(store),
                    timings.wrap(brokers.newPublisher(Brokers.Kind.KAFKA)),
                    threads,
                    new WorkerRun.PublishedCounter(),
                    List.of(timings.wrap(listening)));
        }

        @Override
        public void close() {
            if (!closed) {
                closed = true;
                notifier.close();
                worker.close();
            }
        }
    }

    /** p99 over the floor's p99 of the same rate, e.g. {@code 1.32x}. */
    static String ratio(double value, double floor) {
        return String.format(Locale.ROOT, "%.2fx", value / floor);
    }
}
