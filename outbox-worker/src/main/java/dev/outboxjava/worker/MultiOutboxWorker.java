package dev.outboxjava.worker;

import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.OutboxException;
import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.core.relay.RelayConfig;
import dev.outboxjava.core.relay.RelayListener;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.postgres.WakeUpMode;
import dev.outboxjava.worker.internal.Backoff;
import dev.outboxjava.worker.internal.FairScheduler;
import dev.outboxjava.worker.internal.OutageTracker;
import dev.outboxjava.worker.internal.OutboxLane;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One worker for many outboxes: the outbox tables of many tenants (a schema or a database each), relayed
 * fairly by one set of relay threads, with one pool and one LISTEN connection per database.
 *
 * <p>Each outbox is given per database, as a list or a discovery rule ({@link OutboxTables}); the rules
 * are read again every {@link MultiOutboxConfig#discoveryInterval()}, so a new tenant is relayed without a
 * restart and a dropped one is let go. Each outbox keeps the guarantees of a one-table worker (its own
 * store, relay, lease fencing, per-key order, retries, dead letters, completion mode, layout, sweeper and
 * cleaner); the relay threads take the outboxes that have work in a fair, weighted turn, and an outbox
 * that fails is backed off on its own. The design, the costs and the meters are in the worker guide's
 * "Many outboxes".
 *
 * <p>{@link #start()}, {@link #stop()} and {@link #close()} are idempotent and thread-safe; {@link #close()}
 * also closes the publisher and the resources handed to {@link Builder#closeOnShutdown}.
 */
public final class MultiOutboxWorker implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(MultiOutboxWorker.class);
    private static final Duration INTERRUPT_GRACE = Duration.ofMillis(500);

    private enum State {
        NEW,
        RUNNING,
        STOPPED,
        CLOSED
    }

    private final List<OutboxDatabase> databases;
    private final Publisher publisher;
    private final OutboxWorkerConfig config;
    private final MultiOutboxConfig multiConfig;
    private final HealthConfig healthConfig;
    private final Clock clock;
    private final MeterRegistry registry;
    private final RelayListener listener;
    private final List<AutoCloseable> resources;
    private final Backoff backoff;
    private final OutageTracker brokerOutage = new OutageTracker("broker", false, Clock.systemUTC());
    private final AtomicReference<Instant> brokerFailingSince = new AtomicReference<>();

    private final List<Thread> relayThreads = new ArrayList<>();
    private Thread discoveryThread;
    private CountDownLatch stopping = new CountDownLatch(0);
    private volatile FairScheduler<OutboxLane> scheduler;
    private State state = State.NEW;
    private boolean summaryRegistered;

    private MultiOutboxWorker(Builder builder) {
        this.databases = List.copyOf(builder.databases.values());
        this.publisher =
                Objects.requireNonNull(builder.publisher, "publisher (e.g. a KafkaPublisher or a RabbitMqPublisher)");
        this.config = builder.config;
        this.multiConfig = builder.multiConfig;
        this.healthConfig = builder.healthConfig;
        this.clock = builder.clock;
        this.registry = builder.registry;
        this.listener = builder.listener;
        this.resources = List.copyOf(builder.resources);
        this.backoff = new Backoff(config.backoffInitial(), config.backoffMax());
    }

    /** Assembles a worker of many outboxes. */
    public static Builder builder() {
        return new Builder();
    }

    /** The configuration of the relay threads and of each outbox's loops. */
    public OutboxWorkerConfig config() {
        return config;
    }

    /** The registry the meters are in. */
    public MeterRegistry meterRegistry() {
        return registry;
    }

    /** The outboxes relayed now, in name order (empty before {@link #start()}). */
    public List<OutboxId> outboxes() {
        return scheduled().stream().map(scheduled -> scheduled.lane().id()).toList();
    }

    /**
     * The store of an outbox relayed now, e.g. for the operator's queries.
     *
     * @return empty when the worker does not relay that outbox (now)
     */
    public Optional<PostgresOutboxStore> store(OutboxId id) {
        return databases.stream()
                .map(database -> database.outboxes().get(id))
                .filter(Objects::nonNull)
                .findFirst()
                .map(scheduled -> scheduled.lane().store());
    }

    /**
     * How many relay steps each outbox was given since start (a step is one batch and the housekeeping
     * due): the worker's own figure of its fairness.
     */
    public Map<OutboxId, Long> stepsTaken() {
        FairScheduler<OutboxLane> current = scheduler;
        Map<OutboxId, Long> steps = new LinkedHashMap<>();
        if (current != null) {
            for (OutboxDatabase.Scheduled scheduled : scheduled()) {
                steps.put(scheduled.lane().id(), current.timesTaken(scheduled.slot()));
            }
        }
        return steps;
    }

    private List<OutboxDatabase.Scheduled> scheduled() {
        return databases.stream()
                .flatMap(database -> database.outboxes().values().stream())
                .sorted(Comparator.comparing(scheduled -> scheduled.lane().id().toString()))
                .toList();
    }

    /**
     * Reads the outboxes (the lists, and each discovery rule once), starts the LISTEN connections, the
     * relay threads and the discovery loop. A database that cannot be asked now is asked again at the
     * next discovery. Calling it while running does nothing.
     *
     * @throws OutboxException when the worker was closed
     */
    public synchronized void start() {
        if (state == State.RUNNING) {
            return;
        }
        if (state == State.CLOSED) {
            throw new OutboxException("this MultiOutboxWorker is closed (its publisher too); create a new one to"
                    + " start again, or use stop() instead of close() to pause it");
        }
        FairScheduler<OutboxLane> fresh = new FairScheduler<>(
                config.pollInterval(), multiConfig.maxIdlePollInterval(), backoff, System::nanoTime);
        scheduler = fresh;
        stopping = new CountDownLatch(1);
        registerSummary();
        for (OutboxDatabase database : databases) {
            database.refresh(fresh, entry -> lane(database, entry), this::letGo);
            database.startListening(fresh);
        }
        relayThreads.clear();
        for (int i = 1; i <= config.relayThreads(); i++) {
            Thread thread = new Thread(() -> relayLoop(fresh), "outbox-multi-relay-" + i);
            thread.setDaemon(true);
            relayThreads.add(thread);
        }
        relayThreads.forEach(Thread::start);
        if (databases.stream().anyMatch(database -> database.tables().isDiscovered())) {
            CountDownLatch stop = stopping;
            discoveryThread = new Thread(() -> discoveryLoop(fresh, stop), "outbox-multi-discovery");
            discoveryThread.setDaemon(true);
            discoveryThread.start();
        }
        state = State.RUNNING;
        log.info(
                "outbox worker started for {} outbox(es) in {} database(s): {} relay thread(s), poll interval {}"
                        + " (idle up to {}), discovery every {}",
                outboxes().size(),
                databases.size(),
                config.relayThreads(),
                Durations.format(config.pollInterval()),
                Durations.format(multiConfig.maxIdlePollInterval()),
                Durations.format(multiConfig.discoveryInterval()));
    }

    /** The lane of a new outbox: its store on its database's data source, its relay with the outbox's ordering. */
    private OutboxLane lane(OutboxDatabase database, OutboxTables.Entry entry) {
        PostgresOutboxStore store = database.store(entry);
        RelayConfig relay = config.relayChosen()
                ? config.relay().withOrdering(store.ordering())
                : RelayConfig.ofDefaults(store.ordering());
        return new OutboxLane(
                new OutboxId(database.name(), entry.schema(), entry.table()),
                entry.weight(),
                store,
                publisher,
                config,
                relay,
                clock,
                registry,
                listener);
    }

    private void letGo(OutboxLane lane) {
        lane.removeMeters(registry);
        log.info("outbox {} let go", lane.id());
    }

    private void relayLoop(FairScheduler<OutboxLane> schedule) {
        try {
            while (true) {
                FairScheduler.Slot<OutboxLane> slot = schedule.take();
                if (slot == null) {
                    return;
                }
                FairScheduler.Outcome outcome = slot.item().step();
                if (outcome == FairScheduler.Outcome.REFUSED) {
                    HealthCheck broker = brokerHealth();
                    if (!broker.healthy()) {
                        // down for every outbox: no outbox's own backoff, all of them wait for the broker
                        if (schedule.done(slot, FairScheduler.Outcome.SHORT)) {
                            letGo(slot.item());
                        }
                        waitForBroker(schedule, broker);
                        continue;
                    }
                }
                brokerOutage.succeeded();
                if (schedule.done(slot, outcome)) {
                    letGo(slot.item());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException | Error e) {
            if (e instanceof VirtualMachineError fatal) {
                throw fatal;
            }
            log.error("relay thread of the multi-outbox worker died: {}", e.toString(), e);
        }
    }

    /** Pauses every outbox while the broker's health check fails, probing it; resumes as soon as it answers. */
    private void waitForBroker(FairScheduler<OutboxLane> schedule, HealthCheck broker) throws InterruptedException {
        brokerOutage.failed("a whole batch failed and the broker health check says: " + broker.detail(), null);
        int failures = 1;
        while (!stopping.await(0, TimeUnit.NANOSECONDS)) {
            Duration pause = backoff.delayAfter(failures++);
            schedule.pauseAll(pause);
            long deadline = System.nanoTime() + pause.toNanos();
            while (System.nanoTime() - deadline < 0) {
                if (stopping.await(backoff.probeInterval().toNanos(), TimeUnit.NANOSECONDS)) {
                    schedule.resume();
                    return;
                }
                HealthCheck probe = brokerHealth();
                brokerOutage.probed(probe);
                if (probe.healthy()) {
                    schedule.resume();
                    return;
                }
            }
        }
        schedule.resume();
    }

    private void discoveryLoop(FairScheduler<OutboxLane> schedule, CountDownLatch stop) {
        try {
            while (!stop.await(multiConfig.discoveryInterval().toNanos(), TimeUnit.NANOSECONDS)) {
                for (OutboxDatabase database : databases) {
                    if (database.tables().isDiscovered()) {
                        database.refresh(schedule, entry -> lane(database, entry), this::letGo);
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            log.error("the outbox discovery loop failed; the outboxes found so far are still relayed", e);
        }
    }

    private HealthCheck brokerHealth() {
        try {
            return publisher.checkHealth();
        } catch (RuntimeException e) {
            return HealthCheck.down("health check threw " + e);
        }
    }

    private void registerSummary() {
        if (summaryRegistered) {
            return;
        }
        summaryRegistered = true;
        Gauge.builder("outbox.outboxes", this, worker -> worker.scheduled().size())
                .description("Outboxes this worker relays")
                .register(registry);
        Gauge.builder(
                        "outbox.outboxes.backing_off",
                        this,
                        worker -> worker.readinessNow(false).backingOff().size())
                .description("Outboxes waiting out their own backoff (table missing, database down, destination "
                        + "refusing)")
                .register(registry);
        Gauge.builder(
                        "outbox.outboxes.behind",
                        this,
                        worker -> worker.readinessNow(false).behind().size())
                .description("Outboxes whose oldest eligible event has waited longer than outbox.health.max.lag")
                .register(registry);
    }

    /**
     * Whether every relay thread, and the discovery loop when there is one, is alive (liveness). False
     * before start, after stop and after close.
     */
    public synchronized boolean isRunning() {
        return state == State.RUNNING
                && relayThreads.stream().allMatch(Thread::isAlive)
                && (discoveryThread == null || discoveryThread.isAlive());
    }

    /**
     * Whether the worker can make progress, outbox by outbox: the broker answers (or has been down for less
     * than {@link OutboxWorkerConfig#maxBrokerOutage()}), and no outbox's oldest eligible event has waited
     * longer than {@link HealthConfig#maxLag()} at its last gauges poll. Outboxes that back off on their own
     * are listed, without making the worker unready: the others are relayed.
     */
    public MultiOutboxReadiness readiness() {
        return readinessNow(true);
    }

    /** {@link #readiness()} as one health check, naming the outboxes that are behind or backing off. */
    public HealthCheck checkReadiness() {
        return readiness().summary();
    }

    private MultiOutboxReadiness readinessNow(boolean askBroker) {
        HealthCheck broker = askBroker ? brokerHealth() : HealthCheck.up("not asked");
        boolean brokerReady = true;
        if (askBroker) {
            Instant now = clock.instant();
            if (broker.healthy()) {
                brokerFailingSince.set(null);
            } else {
                Instant since = brokerFailingSince.updateAndGet(previous -> previous == null ? now : previous);
                brokerReady = Duration.between(since, now)
                                .truncatedTo(ChronoUnit.MILLIS)
                                .compareTo(config.maxBrokerOutage())
                        < 0;
            }
        }
        FairScheduler<OutboxLane> current = scheduler;
        List<MultiOutboxReadiness.OutboxState> states = new ArrayList<>();
        for (OutboxDatabase.Scheduled scheduled : scheduled()) {
            OutboxLane lane = scheduled.lane();
            Duration lag = lane.lag();
            boolean backingOff = current != null && current.isBackingOff(scheduled.slot());
            states.add(new MultiOutboxReadiness.OutboxState(
                    lane.id(),
                    lag,
                    lag.compareTo(healthConfig.maxLag()) > 0,
                    backingOff ? Optional.of(lane.lastFailure().orElse("its last step failed")) : Optional.empty()));
        }
        boolean ready = brokerReady && states.stream().noneMatch(MultiOutboxReadiness.OutboxState::behind);
        return new MultiOutboxReadiness(ready, broker, states, healthConfig.maxLag());
    }

    /**
     * Stops taking outboxes, waits up to the shutdown timeout for the steps under way, gives up what is
     * still unfinished (its events go back to pending untried), and stops the LISTEN connections and the
     * discovery; the publisher and the resources stay open and {@link #start()} runs the worker again.
     */
    public synchronized void stop() {
        if (state != State.RUNNING) {
            return;
        }
        stopLoops();
        state = State.STOPPED;
    }

    /** {@link #stop()}, then closes the publisher and the resources. Calling it again does nothing. */
    @Override
    public synchronized void close() {
        if (state == State.CLOSED) {
            return;
        }
        long started = System.nanoTime();
        if (state == State.RUNNING) {
            stopLoops();
        }
        state = State.CLOSED;
        Duration left = config.shutdownTimeout().minusNanos(System.nanoTime() - started);
        try {
            publisher.close(left.isNegative() ? Duration.ofMillis(500) : left);
        } catch (RuntimeException e) {
            log.warn("closing the publisher failed: {}", e.toString());
        }
        for (AutoCloseable resource : resources) {
            try {
                resource.close();
            } catch (Exception e) {
                log.warn("closing {} failed: {}", resource.getClass().getSimpleName(), e.toString());
            }
        }
    }

    private void stopLoops() {
        long started = System.nanoTime();
        FairScheduler<OutboxLane> current = scheduler;
        stopping.countDown();
        current.close();
        databases.forEach(OutboxDatabase::stopListening);
        long deadline = started + config.shutdownTimeout().toNanos();
        int released = 0;
        try {
            if (!joinAll(deadline)) {
                log.warn(
                        "steps in flight did not finish within {}; giving them up: their events go back to pending "
                                + "untried",
                        Durations.format(config.shutdownTimeout()));
                scheduled().forEach(scheduled -> scheduled.lane().abandon());
                if (!joinAll(System.nanoTime() + INTERRUPT_GRACE.toNanos())) {
                    relayThreads.forEach(Thread::interrupt);
                }
                for (OutboxDatabase.Scheduled scheduled : scheduled()) {
                    released += scheduled.lane().releaseOutstanding(clock.instant());
                }
            }
            if (discoveryThread != null) {
                discoveryThread.join(INTERRUPT_GRACE.toMillis());
                discoveryThread = null;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (OutboxDatabase.Scheduled scheduled : scheduled()) {
            scheduled.lane().removeMeters(registry);
        }
        databases.forEach(OutboxDatabase::clear);
        log.info(
                "outbox worker of many outboxes stopped in {} ms{}",
                (System.nanoTime() - started) / 1_000_000,
                released > 0 ? " (" + released + " event(s) released)" : "");
    }

    private boolean joinAll(long deadlineNanos) throws InterruptedException {
        for (Thread thread : relayThreads) {
            long remaining = deadlineNanos - System.nanoTime();
            thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(remaining)));
            if (thread.isAlive()) {
                return false;
            }
        }
        return true;
    }

    /** Assembles a {@link MultiOutboxWorker}: at least one database and a publisher are required. */
    public static final class Builder {
        private final Map<String, OutboxDatabase> databases = new LinkedHashMap<>();
        private Publisher publisher;
        private OutboxWorkerConfig config = OutboxWorkerConfig.ofDefaults();
        private MultiOutboxConfig multiConfig = MultiOutboxConfig.ofDefaults();
        private HealthConfig healthConfig = HealthConfig.ofDefaults();
        private Clock clock = Clock.systemUTC();
        private MeterRegistry registry = new SimpleMeterRegistry();
        private RelayListener listener = RelayListener.NONE;
        private final List<AutoCloseable> resources = new ArrayList<>();

        private Builder() {}

        /**
         * A database and its outboxes. Its data source is the one pool of all its outboxes (not closed by
         * the worker unless also given to {@link #closeOnShutdown}).
         *
         * @param name names the database in logs, health details and the {@code database} tag
         * @throws InvalidSettingsException when the name is used twice
         */
        public Builder database(String name, DataSource dataSource, OutboxTables tables) {
            Objects.requireNonNull(name, "name");
            if (databases.containsKey(name)) {
                throw new InvalidSettingsException(List.of(new InvalidSettingsException.Problem(
                        "MultiOutboxWorker.builder().database(name, ...)",
                        "the database name " + name + " is given twice; give each database its own name")));
            }
            databases.put(name, new OutboxDatabase(name, dataSource, tables));
            return this;
        }

        /** Where the events of every outbox go. Required; closed by {@link MultiOutboxWorker#close()}. */
        public Builder publisher(Publisher value) {
            this.publisher = Objects.requireNonNull(value, "publisher");
            return this;
        }

        /**
         * The relay threads (shared by all outboxes), the poll interval, the retry policy and each outbox's
         * sweeper, cleaner and gauges. Default {@link OutboxWorkerConfig#ofDefaults()}.
         */
        public Builder config(OutboxWorkerConfig value) {
            this.config = Objects.requireNonNull(value, "config");
            return this;
        }

        /** Discovery and idle polling. Default {@link MultiOutboxConfig#ofDefaults()}. */
        public Builder multiConfig(MultiOutboxConfig value) {
            this.multiConfig = Objects.requireNonNull(value, "multiConfig");
            return this;
        }

        /** The lag over which an outbox is behind. Default {@link HealthConfig#ofDefaults()}. */
        public Builder healthConfig(HealthConfig value) {
            this.healthConfig = Objects.requireNonNull(value, "healthConfig");
            return this;
        }

        /** The clock for leases, retries and retention. Default {@link Clock#systemUTC()}. */
        public Builder clock(Clock value) {
            this.clock = Objects.requireNonNull(value, "clock");
            return this;
        }

        /** Where the meters go. Default: a new {@link SimpleMeterRegistry}. */
        public Builder meterRegistry(MeterRegistry value) {
            this.registry = Objects.requireNonNull(value, "meterRegistry");
            return this;
        }

        /** Also told what each outbox's relay did (besides the metrics). Default: none. */
        public Builder relayListener(RelayListener value) {
            this.listener = Objects.requireNonNull(value, "relayListener");
            return this;
        }

        /** Closed by {@link MultiOutboxWorker#close()} after the loops and the publisher (e.g. the pools). */
        public Builder closeOnShutdown(List<? extends AutoCloseable> values) {
            this.resources.addAll(values);
            return this;
        }

        /**
         * Assembles the worker.
         *
         * @throws InvalidSettingsException when no database is given, or a database's HikariCP pool is smaller
         *         than the relay threads plus its LISTEN connection
         */
        public MultiOutboxWorker build() {
            if (databases.isEmpty()) {
                throw new InvalidSettingsException(List.of(new InvalidSettingsException.Problem(
                        "MultiOutboxWorker.builder().database(...)", "give at least one database and its outboxes")));
            }
            for (OutboxDatabase database : databases.values()) {
                WakeUpMode wakeUp = database.tables().listens() ? WakeUpMode.NOTIFY_AFTER_COMMIT : WakeUpMode.NONE;
                ConnectionBudget.poolSize(database.dataSource())
                        .ifPresent(size -> ConnectionBudget.check(
                                config,
                                wakeUp,
                                size,
                                OutboxWorkerConfig.setting("relayThreads"),
                                "database " + database.name(),
                                "the maximum pool size of database " + database.name()));
            }
            return new MultiOutboxWorker(this);
        }
    }
}
