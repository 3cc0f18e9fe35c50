package dev.outboxjava.worker;

import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.OutboxException;
import dev.outboxjava.core.port.Backlog;
import dev.outboxjava.core.port.OutboxStore;
import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.core.port.WorkerHeartbeat;
import dev.outboxjava.core.port.WorkerHeartbeats;
import dev.outboxjava.core.relay.Cleaner;
import dev.outboxjava.core.relay.Relay;
import dev.outboxjava.core.relay.RelayConfig;
import dev.outboxjava.core.relay.RelayListener;
import dev.outboxjava.core.relay.Sweeper;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.postgres.StoreLayout;
import dev.outboxjava.postgres.WakeUpMode;
import dev.outboxjava.worker.internal.BacklogGauges;
import dev.outboxjava.worker.internal.Backoff;
import dev.outboxjava.worker.internal.CompletionThread;
import dev.outboxjava.worker.internal.CompositeRelayListener;
import dev.outboxjava.worker.internal.HeartbeatStep;
import dev.outboxjava.worker.internal.LeaseTrackingStore;
import dev.outboxjava.worker.internal.LoopThread;
import dev.outboxjava.worker.internal.MetricsRelayListener;
import dev.outboxjava.worker.internal.MissedWakeUps;
import dev.outboxjava.worker.internal.OutageTracker;
import dev.outboxjava.worker.internal.PeriodicStep;
import dev.outboxjava.worker.internal.RelayStep;
import dev.outboxjava.worker.internal.WakeUpSignal;
import dev.outboxjava.worker.observability.RelaySummaryListener;
import dev.outboxjava.worker.observability.Tracing;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The running outbox: relay threads, a sweeper, a cleaner and the backlog gauges, each a loop
 * that ticks at once on {@link #start()}, then on its interval (the relay also on a wake-up, and
 * at once again while its batches come back full).
 *
 * <p>With Guice, install {@link OutboxWorkerModule} plus one store module and one publisher module
 * and get this from the injector; without Guice, use {@link #builder()}.
 *
 * <p><b>Outages.</b> A loop whose database or broker fails backs off exponentially (bounded by
 * {@link OutboxWorkerConfig#backoffMax()}) and logs once when the outage starts and once when it
 * ends. While it backs off it probes the dependency's health check about twice a second and resumes
 * as soon as the dependency answers again, however long its backoff. An unexpected exception (even
 * an {@link Error} other than {@link VirtualMachineError}) is logged and the loop goes on.
 *
 * <p><b>Shutdown.</b> {@link #close()} stops leasing, lets batches in flight finish within
 * {@link OutboxWorkerConfig#shutdownTimeout()}, releases what is still unfinished back to pending
 * (attempts unchanged, nothing reported as a failure or a lost lease), then closes the publisher,
 * the wake-up sources and the resources handed to it. The whole close takes at most the shutdown
 * timeout plus about 1.5 s, whatever the broker does. {@link #stop()} does the same for the loops
 * and the wake-up sources but keeps the publisher and the resources open, so that {@link #start()}
 * can run the worker again (a container's stop/start lifecycle). {@link #start()}, {@link #stop()}
 * and {@link #close()} are idempotent and thread-safe.
 */
public final class OutboxWorker implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(OutboxWorker.class);
    /**
     * How far past the shutdown timeout {@link #close()} may run at most: abandoned batches go back
     * to pending, and the publisher and the resources close. The standalone process promises to exit
     * within the shutdown timeout plus 2 s, JVM exit included.
     */
    private static final Duration AFTER_TIMEOUT_GRACE = Duration.ofMillis(1500);
    /** How long relay threads get, once abandoned, to release their batches and end. */
    private static final Duration ABANDON_GRACE = Duration.ofMillis(500);
    /** How long a loop gets to wind down once interrupted. */
    private static final Duration INTERRUPT_GRACE = Duration.ofMillis(200);
    /** The least a publisher gets to close when the loops used up the shutdown timeout. */
    private static final Duration MIN_PUBLISHER_CLOSE = Duration.ofMillis(500);

    private enum State {
        NEW,
        RUNNING,
        STOPPED,
        CLOSED
    }

    private final OutboxStore store;
    private final LeaseTrackingStore leases;
    private final Publisher publisher;
    private final OutboxWorkerConfig config;
    private final MissedWakeUps missedWakeUps;
    private final Clock clock;
    private final MeterRegistry registry;
    private final RelayListener extraListener;
    private final List<WakeUpSource> wakeUpSources;
    private final List<AutoCloseable> resources;
    private final List<ReadinessCheck> readinessChecks;
    private final WakeUpSignal wakeUp = new WakeUpSignal();
    /** When the broker's health check began to fail, as seen by readiness checks; null while it answers. */
    private final AtomicReference<Instant> brokerFailingSince = new AtomicReference<>();

    private final List<LoopThread> relayLoops = new ArrayList<>();
    private final List<LoopThread> otherLoops = new ArrayList<>();
    private final List<AutoCloseable> startedSources = new ArrayList<>();
    /** The outage trackers of the current run, whose last failure the heartbeat reports. */
    private final List<OutageTracker> trackers = new ArrayList<>();

    private State state = State.NEW;
    /** Shared by the relay threads; null until started. */
    private Relay relay;
    /** The database's outage as the loops of the current run see it; null until started. */
    private OutageTracker storeOutage;
    /** Registered once: a gauge registered again in the same registry keeps the first state object. */
    private BacklogGauges gauges;

    private OutboxWorker(Builder builder) {
        this.store =
                Objects.requireNonNull(builder.store, "store (bind an OutboxStore, e.g. install PostgresStoreModule)");
        this.publisher = Objects.requireNonNull(
                builder.publisher,
                "publisher (bind a Publisher, e.g. install KafkaPublisherModule or RabbitMqPublisherModule)");
        this.leases = new LeaseTrackingStore(store, wakeUp::leaseStarting, wakeUp::leaseReturned);
        this.clock = builder.clock;
        this.registry = builder.registry;
        this.extraListener = builder.listener;
        this.wakeUpSources = List.copyOf(builder.wakeUpSources);
        this.resources = List.copyOf(builder.resources);
        this.readinessChecks = List.copyOf(builder.readinessChecks);
        this.config = followStoreOrdering(builder.config, store.ordering());
        String expected = wakeUpSources.stream()
                .map(WakeUpSource::expects)
                .filter(text -> !text.isEmpty())
                .collect(java.util.stream.Collectors.joining(" or "));
        this.missedWakeUps =
                expected.isEmpty() ? MissedWakeUps.none() : MissedWakeUps.expecting(expected, config.pollInterval());
    }

    /**
     * The relay settings follow the store's ordering: left unset, they are the defaults of that ordering
     * (its batch size included); set without ordering, they take the store's.
     */
    private static OutboxWorkerConfig followStoreOrdering(OutboxWorkerConfig config, Ordering storeOrdering) {
        if (!config.relayChosen()) {
            return config.toBuilder()
                    .relay(RelayConfig.ofDefaults(storeOrdering))
                    .build();
        }
        Ordering relayOrdering = config.relay().ordering();
        if (relayOrdering.equals(storeOrdering)) {
            return config;
        }
        if (relayOrdering.isPerKey()) {
            throw new InvalidSettingsException(List.of(new InvalidSettingsException.Problem(
                    OutboxWorkerConfig.setting("relay") + ".ordering()",
                    "the relay's ordering (" + relayOrdering + ") differs "
                            + "from its store's (" + storeOrdering
                            + "): set it once, on the store's configuration "
                            + "(PostgresOutboxConfig.ordering), which the relay follows")));
        }
        return config.toBuilder()
                .relay(config.relay().withOrdering(storeOrdering))
                .build();
    }

    /** Starts a worker without Guice. */
    public static Builder builder() {
        return new Builder();
    }

    /** The in-process wake-up of this worker's relay threads. */
    public OutboxWakeUp wakeUp() {
        return wakeUp;
    }

    /** The configuration in use. */
    public OutboxWorkerConfig config() {
        return config;
    }

    /** The store the loops work on. */
    public OutboxStore store() {
        return store;
    }

    /** The publisher the relay hands events to. */
    public Publisher publisher() {
        return publisher;
    }

    /** The registry the worker's meters are in. */
    public MeterRegistry meterRegistry() {
        return registry;
    }

    /**
     * Starts the loops and the wake-up sources, also after {@link #stop()}. Calling it again while
     * running does nothing.
     *
     * @throws OutboxException when the worker was already closed
     */
    public synchronized void start() {
        if (state == State.RUNNING) {
            return;
        }
        if (state == State.CLOSED) {
            throw new OutboxException("this OutboxWorker is closed (its publisher too); create a new one to start "
                    + "again, or use stop() instead of close() to pause it");
        }
        relayLoops.clear();
        otherLoops.clear();
        startedSources.clear();
        wakeUp.reopen();
        Backoff backoff = new Backoff(config.backoffInitial(), config.backoffMax());
        OutageTracker storeOutage = new OutageTracker("database", false, Clock.systemUTC());
        this.storeOutage = storeOutage;
        OutageTracker brokerOutage = new OutageTracker("broker", false, Clock.systemUTC());
        trackers.clear();
        trackers.add(storeOutage);
        trackers.add(brokerOutage);
        List<RelayListener> listeners = new ArrayList<>(List.of(new MetricsRelayListener(registry)));
        if (!config.logSummaryInterval().isZero()) {
            listeners.add(RelaySummaryListener.every(config.logSummaryInterval(), registry));
        }
        listeners.add(extraListener);
        RelayListener listener = new CompositeRelayListener(listeners);
        // with opentelemetry-api on the classpath each batch's publish runs in a span linked to its events' traces
        relay = new Relay(leases, Tracing.traced(publisher), config.relay(), config.retryPolicy(), clock, listener);
        for (int i = 1; i <= config.relayThreads(); i++) {
            String name = "relay-" + i;
            relayLoops.add(new LoopThread(
                    new RelayStep(
                            name,
                            relay,
                            publisher,
                            leases,
                            config.pollInterval(),
                            backoff,
                            storeOutage,
                            brokerOutage,
                            tracked(new OutageTracker(name + " loop", true, Clock.systemUTC())),
                            missedWakeUps,
                            clock,
                            new CompletionThread(name)),
                    wakeUp));
        }
        Sweeper sweeper = new Sweeper(store, config.sweeper(), clock);
        otherLoops.add(periodic("sweeper", sweeper::runOnce, config.sweepInterval(), backoff, storeOutage));
        if (config.cleanerEnabled()) {
            Cleaner cleaner = new Cleaner(store, config.cleaner(), clock);
            otherLoops.add(periodic("cleaner", cleaner::runOnce, config.cleanInterval(), backoff, storeOutage));
        }
        if (gauges == null) {
            gauges = new BacklogGauges(store, clock, registry);
        }
        otherLoops.add(periodic("gauges", gauges::poll, config.metricsPollInterval(), backoff, storeOutage));
        WorkerHeartbeats beats = store instanceof PostgresOutboxStore postgres
                ? postgres.heartbeats()
                : store instanceof WorkerHeartbeats own ? own : null;
        if (beats != null && !config.heartbeatInterval().isZero()) {
            WorkerHeartbeat first = firstHeartbeat();
            List<OutageTracker> seen = List.copyOf(trackers);
            otherLoops.add(new LoopThread(
                    new HeartbeatStep(
                            beats,
                            () -> first.beatenAt(clock.instant(), leases.lastLeaseAt(), lastFailure(seen)),
                            config.heartbeatInterval(),
                            new OutageTracker("worker heartbeat", false, Clock.systemUTC()),
                            clock),
                    wakeUp));
        }

        relayLoops.forEach(LoopThread::start);
        otherLoops.forEach(LoopThread::start);
        for (ReadinessCheck check : readinessChecks) {
            try {
                startedSources.add(check.start());
            } catch (RuntimeException e) {
                log.warn(
                        "readiness check {} did not start: {}", check.getClass().getSimpleName(), e.toString());
            }
        }
        for (WakeUpSource source : wakeUpSources) {
            try {
                startedSources.add(source.start(wakeUp));
            } catch (RuntimeException e) {
                log.warn(
                        "wake-up source {} did not start; the relay polls every {} instead: {}",
                        source.getClass().getSimpleName(),
                        Durations.format(config.pollInterval()),
                        e.toString());
            }
        }
        state = State.RUNNING;
        log.info(
                "outbox worker started: {} relay thread(s), batch size {}, ordering {}, publish timeout {}, "
                        + "poll interval {}, lease timeout {}, cleaner {}, meters in {}",
                config.relayThreads(),
                config.relay().batchSize(),
                config.relay().ordering().isPerKey() ? "per key" : "none",
                Durations.format(config.relay().publishTimeout()),
                Durations.format(config.pollInterval()),
                Durations.format(config.sweeper().leaseTimeout()),
                config.cleanerEnabled()
                        ? "retention " + Durations.format(config.cleaner().retention())
                        : "off",
                registry instanceof SimpleMeterRegistry
                        ? "a SimpleMeterRegistry (in memory: pass the application's registry to export them)"
                        : registry.getClass().getSimpleName());
    }

    private LoopThread periodic(
            String name,
            java.util.function.IntSupplier tick,
            Duration interval,
            Backoff backoff,
            OutageTracker storeOutage) {
        return new LoopThread(
                new PeriodicStep(
                        name,
                        tick,
                        interval,
                        backoff,
                        storeOutage,
                        tracked(new OutageTracker(name + " loop", true, Clock.systemUTC())),
                        store::checkHealth),
                wakeUp);
    }

    private OutageTracker tracked(OutageTracker tracker) {
        trackers.add(tracker);
        return tracker;
    }

    /** The heartbeat of this run at its start: a new worker id, who and where it is, how it relays. */
    private WorkerHeartbeat firstHeartbeat() {
        Instant now = clock.instant();
        String version = OutboxWorker.class.getPackage().getImplementationVersion();
        return new WorkerHeartbeat(
                UUID.randomUUID(),
                ManagementFactory.getRuntimeMXBean().getName(),
                hostName(),
                version != null ? version : "development build",
                config.relayThreads(),
                config.relay().ordering().isPerKey() ? "per key" : "none",
                layoutName(),
                now,
                now,
                config.heartbeatInterval(),
                java.util.Optional.empty(),
                java.util.Optional.empty());
    }

    private String layoutName() {
        if (store instanceof PostgresOutboxStore postgres) {
            return postgres.config().layout() == StoreLayout.APPEND_LOG ? "append-only" : "in place";
        }
        return store.getClass().getSimpleName();
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException | RuntimeException e) {
            return "unknown host";
        }
    }

    /** The latest failure any of the run's trackers saw. */
    private static java.util.Optional<WorkerHeartbeat.Failure> lastFailure(List<OutageTracker> trackers) {
        return trackers.stream()
                .map(OutageTracker::lastFailure)
                .flatMap(java.util.Optional::stream)
                .max(java.util.Comparator.comparing(WorkerHeartbeat.Failure::at));
    }

    /** Whether every loop thread is alive (liveness). False before start and after close. */
    public synchronized boolean isRunning() {
        return state == State.RUNNING
                && relayLoops.stream().allMatch(LoopThread::isAlive)
                && otherLoops.stream().allMatch(LoopThread::isAlive);
    }

    /**
     * Whether the worker can make progress (readiness): the database answers now, the broker answers or
     * has failed for no longer than {@link OutboxWorkerConfig#maxBrokerOutage()}, and every
     * {@link ReadinessCheck} passes. Calls both adapters' health checks and the extra checks (e.g. the
     * database health signals).
     */
    public HealthCheck checkReadiness() {
        return readiness().summary();
    }

    /**
     * {@link #checkReadiness()} part by part: the database's and the broker's checks, how long the broker
     * has been down, and each extra {@link ReadinessCheck}. Calls the same checks.
     */
    public Readiness readiness() {
        HealthCheck db = safely(store::checkHealth);
        HealthCheck broker = safely(publisher::checkHealth);
        Instant now = clock.instant();
        java.util.Optional<Duration> downFor;
        if (broker.healthy()) {
            brokerFailingSince.set(null);
            downFor = java.util.Optional.empty();
        } else {
            Instant since = brokerFailingSince.updateAndGet(previous -> previous == null ? now : previous);
            downFor = java.util.Optional.of(Duration.between(since, now).truncatedTo(ChronoUnit.MILLIS));
        }
        List<HealthCheck> extras = new ArrayList<>();
        boolean extrasHealthy = true;
        for (ReadinessCheck check : readinessChecks) {
            HealthCheck extra = safely(check::check);
            extrasHealthy &= extra.healthy();
            extras.add(extra);
        }
        boolean brokerReady = broker.healthy()
                || downFor.map(down -> down.compareTo(config.maxBrokerOutage()) < 0)
                        .orElse(false);
        return new Readiness(
                db.healthy() && brokerReady && extrasHealthy, db, broker, downFor, config.maxBrokerOutage(), extras);
    }

    /**
     * The pending events now, by what they wait for (one query to the store): the figures behind the
     * readiness lag, for health details.
     *
     * @throws dev.outboxjava.core.OutboxStoreException when the store cannot be asked
     */
    public Backlog backlog() {
        return store.backlog(clock.instant());
    }

    private static HealthCheck safely(java.util.function.Supplier<HealthCheck> check) {
        try {
            return check.get();
        } catch (RuntimeException e) {
            return HealthCheck.down("health check threw " + e);
        }
    }

    /**
     * Stops leasing, waits up to the shutdown timeout for batches in flight, gives up what is still
     * unfinished (its events go back to pending untried) and stops the wake-up sources, within the
     * shutdown timeout plus about 1.5 s; the publisher and the resources stay open, and
     * {@link #start()} runs the worker again. Does nothing unless the worker is running.
     */
    public synchronized void stop() {
        if (state != State.RUNNING) {
            return;
        }
        long started = System.nanoTime();
        long deadline = started + config.shutdownTimeout().toNanos();
        int released = stopLoops(deadline, deadline + AFTER_TIMEOUT_GRACE.toNanos());
        state = State.STOPPED;
        log.info(
                "outbox worker stopped in {} ms{}{}; it can be started again",
                (System.nanoTime() - started) / 1_000_000,
                released > 0 ? " (" + released + " event(s) released)" : "",
                whileDatabaseDown());
    }

    /**
     * Stops leasing, waits up to the shutdown timeout for batches in flight, gives up what is still
     * unfinished (its events go back to pending untried), and closes the publisher, the wake-up
     * sources and the given resources, all within the shutdown timeout plus about 1.5 s whatever the
     * broker does: the publisher gets what is left of the shutdown timeout (at least 0.5 s), not its
     * own close timeout on top. Calling it again does nothing.
     */
    @Override
    public synchronized void close() {
        if (state == State.CLOSED) {
            return;
        }
        boolean wasRunning = state == State.RUNNING;
        state = State.CLOSED;
        long started = System.nanoTime();
        long deadline = started + config.shutdownTimeout().toNanos();
        long lastMoment = deadline + AFTER_TIMEOUT_GRACE.toNanos();
        int released = wasRunning ? stopLoops(deadline, lastMoment) : 0;
        long now = System.nanoTime();
        long publisherBudget = Math.min(Math.max(deadline - now, MIN_PUBLISHER_CLOSE.toNanos()), lastMoment - now);
        closeWithin(publisher, Duration.ofNanos(Math.max(0, publisherBudget)));
        for (AutoCloseable resource : resources) {
            closeWithin(resource, Duration.ofNanos(Math.max(0, lastMoment - System.nanoTime())));
        }
        if (wasRunning) {
            log.info(
                    "outbox worker stopped in {} ms{}{}",
                    (System.nanoTime() - started) / 1_000_000,
                    released > 0 ? " (" + released + " event(s) released)" : "",
                    whileDatabaseDown());
        }
    }

    /** For the stop's log line: whether it stopped while the database did not answer or the table was missing. */
    private String whileDatabaseDown() {
        if (storeOutage == null || !storeOutage.isDown()) {
            return "";
        }
        return storeOutage.isTableMissing()
                ? " while the outbox table was missing"
                : " while the database was unavailable";
    }

    /** Ends the loops and the started sources by {@code deadline} (nanoTime), giving up batches by {@code lastMoment}. */
    private int stopLoops(long deadline, long lastMoment) {
        log.info(
                "outbox worker stopping: no new leases; batches in flight get up to {}",
                Durations.format(config.shutdownTimeout()));
        closeQuietly(startedSources);
        relayLoops.forEach(LoopThread::requestStop);
        otherLoops.forEach(LoopThread::requestStop);
        int released = 0;
        try {
            if (!joinAll(relayLoops, deadline)) {
                released = abandonRelayLoops(lastMoment);
            }
            if (!joinAll(otherLoops, Math.max(deadline, System.nanoTime() + INTERRUPT_GRACE.toNanos()))) {
                otherLoops.forEach(LoopThread::interrupt);
                joinAll(otherLoops, System.nanoTime() + INTERRUPT_GRACE.toNanos());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            if (relay != null) {
                relay.abandonInFlight();
            }
            released += leases.releaseOutstanding(clock.instant());
        }
        return released;
    }

    /**
     * The shutdown timeout ran out with batches still in flight: the relay stops waiting for the broker
     * and its threads release their own batches (no attempt spent, no lease reported lost); whatever
     * a thread stuck elsewhere still holds is released from here.
     *
     * @return how many events went back to pending
     */
    private int abandonRelayLoops(long lastMoment) throws InterruptedException {
        log.warn(
                "batches in flight did not finish within {}; giving them up: their events go back to pending untried "
                        + "and the next relay publishes them (possibly a second time)",
                Durations.format(config.shutdownTimeout()));
        leases.countReleases();
        relay.abandonInFlight();
        if (!joinAll(relayLoops, Math.min(System.nanoTime() + ABANDON_GRACE.toNanos(), lastMoment))) {
            leases.releaseOutstanding(clock.instant());
            relayLoops.forEach(LoopThread::interrupt);
            joinAll(relayLoops, Math.min(System.nanoTime() + INTERRUPT_GRACE.toNanos(), lastMoment));
        }
        return leases.releasedSinceCounting();
    }

    /**
     * Closes {@code closeable} on a thread of its own and waits at most {@code budget} (plus a little)
     * for it: a close that hangs on an unresponsive broker or database must not hold the shutdown.
     */
    private static void closeWithin(AutoCloseable closeable, Duration budget) {
        String name = closeable.getClass().getSimpleName();
        Thread closer = new Thread(
                () -> {
                    try {
                        if (closeable instanceof Publisher closing) {
                            closing.close(budget);
                        } else {
                            closeable.close();
                        }
                    } catch (Exception e) {
                        log.warn("closing {} failed: {}", name, e.toString());
                    }
                },
                "outbox-close-" + name);
        closer.setDaemon(true);
        closer.start();
        try {
            closer.join(Math.max(1, budget.plus(INTERRUPT_GRACE).toMillis()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (closer.isAlive()) {
            log.warn(
                    "closing {} did not finish within {} ms; the worker stops without waiting for it",
                    name,
                    budget.toMillis());
        }
    }

    private static boolean joinAll(List<LoopThread> loops, long deadlineNanos) throws InterruptedException {
        for (LoopThread loop : loops) {
            long remaining = deadlineNanos - System.nanoTime();
            if (remaining <= 0 && loop.isAlive()) {
                return false;
            }
            if (!loop.join(Duration.ofNanos(Math.max(remaining, 1_000_000)))) {
                return false;
            }
        }
        return true;
    }

    private static void closeQuietly(Collection<? extends AutoCloseable> closeables) {
        for (AutoCloseable closeable : closeables) {
            try {
                closeable.close();
            } catch (Exception e) {
                log.warn("closing {} failed: {}", closeable.getClass().getSimpleName(), e.toString());
            }
        }
    }

    /**
     * Assembles a worker. Required: {@link #store} and {@link #publisher}; everything else has a
     * default stated on its method.
     */
    public static final class Builder {
        private OutboxStore store;
        private Publisher publisher;
        private OutboxWorkerConfig config = OutboxWorkerConfig.ofDefaults();
        private Clock clock = Clock.systemUTC();
        private MeterRegistry registry = new SimpleMeterRegistry();
        private RelayListener listener = RelayListener.NONE;
        private final List<WakeUpSource> wakeUpSources = new ArrayList<>();
        private final List<AutoCloseable> resources = new ArrayList<>();
        private final List<ReadinessCheck> readinessChecks = new ArrayList<>();
        private java.util.OptionalInt postgresPool = java.util.OptionalInt.empty();
        private WakeUpMode postgresWakeUp = WakeUpMode.NONE;

        private Builder() {}

        /** Where the events are. Required. */
        public Builder store(OutboxStore value) {
            this.store = Objects.requireNonNull(value, "store");
            return this;
        }

        /**
         * The events are in PostgreSQL: a {@link PostgresOutboxStore} on the application's data source,
         * with the SAME configuration the application appends with, and the wake-up its
         * {@linkplain PostgresOutboxConfig#wakeUpMode() wake-up mode} implies (a LISTEN, or in-process
         * signals to {@link OutboxWorker#wakeUp()}). The relay follows the configuration's ordering. The
         * data source stays the application's (not closed by the worker).
         *
         * @throws InvalidSettingsException when the data source is a pool too small for the relay threads
         *         (checked by {@link #build()})
         */
        public Builder postgres(DataSource dataSource, PostgresOutboxConfig value) {
            return postgres(PostgresOutboxStore.create(dataSource, value));
        }

        /** As {@link #postgres(DataSource, PostgresOutboxConfig)}, with a store already created. */
        public Builder postgres(PostgresOutboxStore value) {
            this.store = Objects.requireNonNull(value, "store");
            this.postgresPool = ConnectionBudget.poolSize(value.dataSource());
            this.postgresWakeUp = value.config().wakeUpMode();
            this.wakeUpSources.add(PostgresWakeUps.forStore(value));
            return this;
        }

        /** Where the events go. Required; closed by {@link OutboxWorker#close()}. */
        public Builder publisher(Publisher value) {
            this.publisher = Objects.requireNonNull(value, "publisher");
            return this;
        }

        /** How the loops run. Default {@link OutboxWorkerConfig#ofDefaults()}. */
        public Builder config(OutboxWorkerConfig value) {
            this.config = Objects.requireNonNull(value, "config");
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

        /** Also told what the relay did (besides the metrics). Default: none. */
        public Builder relayListener(RelayListener value) {
            this.listener = Objects.requireNonNull(value, "relayListener");
            return this;
        }

        /** More conditions of {@link OutboxWorker#checkReadiness()}, started and stopped with the worker. Default: none. */
        public Builder readinessChecks(Collection<? extends ReadinessCheck> values) {
            this.readinessChecks.addAll(values);
            return this;
        }

        /** Wake-up sources started with the worker (e.g. PostgreSQL LISTEN). Default: none. */
        public Builder wakeUpSources(Collection<? extends WakeUpSource> values) {
            this.wakeUpSources.addAll(values);
            return this;
        }

        /** Closed by {@link OutboxWorker#close()} after the loops and the publisher (e.g. a connection pool). Default: none. */
        public Builder closeOnShutdown(Collection<? extends AutoCloseable> values) {
            this.resources.addAll(values);
            return this;
        }

        /**
         * Assembles the worker.
         *
         * @throws InvalidSettingsException when the relay's ordering contradicts the store's, or the
         *         store's pool is too small for the relay threads
         */
        public OutboxWorker build() {
            postgresPool.ifPresent(size ->
                    ConnectionBudget.check(config, postgresWakeUp, size, "the data source's maximum pool size"));
            return new OutboxWorker(this);
        }
    }
}
