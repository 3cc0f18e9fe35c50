package dev.outboxjava.it.faults;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.OutboxStoreException;
import dev.outboxjava.core.RetryPolicy;
import dev.outboxjava.core.port.OutboxStore;
import dev.outboxjava.core.port.Publisher;
import dev.outboxjava.core.relay.Relay;
import dev.outboxjava.core.relay.RelayConfig;
import dev.outboxjava.core.relay.RelayListener;
import dev.outboxjava.core.relay.RelayResult;
import dev.outboxjava.core.relay.Sweeper;
import dev.outboxjava.core.relay.SweeperConfig;
import dev.outboxjava.testkit.FaultyPublisher;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A relay in this JVM — the core's {@link Relay} and {@link Sweeper} on loop threads of their own — for
 * the faults a separate process cannot show on purpose: the publisher is a {@link FaultyPublisher} (hang,
 * {@linkplain #crashAfterNextAck() die between the broker's acknowledgement and the mark}), and the clock
 * is the caller's (skew it with {@link Clock#offset}).
 *
 * <p>{@link #kill()} makes it die like a process: from that instant every database call of this relay
 * fails (nothing more is marked, released or swept), its threads stop and its resources are closed. What
 * it held stays in flight until another relay's sweeper reclaims it.
 */
public final class InJvmRelay implements RelayHandle {

    private static final Logger log = LoggerFactory.getLogger(InJvmRelay.class);

    /**
     * How the relay runs.
     *
     * @param relay         batch size, publish timeout, ordering
     * @param retryPolicy   backoff of failed events
     * @param sweeper       lease timeout of its sweeper
     * @param sweepInterval how often its sweeper runs
     * @param idlePause     how long a relay thread waits after an empty tick or a failure
     * @param threads       relay threads
     * @param clock         its clock (the harness skews it for the clock-skew fault)
     */
    public record Options(
            RelayConfig relay,
            RetryPolicy retryPolicy,
            SweeperConfig sweeper,
            Duration sweepInterval,
            Duration idlePause,
            int threads,
            Clock clock) {

        public Options {
            Objects.requireNonNull(relay, "relay");
            Objects.requireNonNull(retryPolicy, "retryPolicy");
            Objects.requireNonNull(sweeper, "sweeper");
            Objects.requireNonNull(sweepInterval, "sweepInterval");
            Objects.requireNonNull(idlePause, "idlePause");
            Objects.requireNonNull(clock, "clock");
            if (threads < 1) {
                throw new IllegalArgumentException("threads must be at least 1, was " + threads);
            }
        }

        /** These options with another clock. */
        public Options withClock(Clock value) {
            return new Options(relay, retryPolicy, sweeper, sweepInterval, idlePause, threads, value);
        }
    }

    private final String name;
    private final KillableStore store;
    private final FaultyPublisher publisher;
    private final Options options;
    private final List<AutoCloseable> resources;
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicBoolean dead = new AtomicBoolean();
    private final Set<UUID> leaseLost = ConcurrentHashMap.newKeySet();
    private final AtomicLong published = new AtomicLong();

    private InJvmRelay(
            String name, OutboxStore store, Publisher publisher, Options options, List<AutoCloseable> resources) {
        this.name = name;
        this.store = new KillableStore(store, name);
        this.publisher = FaultyPublisher.wrapping(publisher);
        this.options = options;
        this.resources = List.copyOf(resources);
    }

    /**
     * Starts the relay and sweeper threads.
     *
     * @param resources closed when the relay is killed or closed (its own pool, its publisher, ...)
     */
    public static InJvmRelay start(
            String name, OutboxStore store, Publisher publisher, Options options, List<AutoCloseable> resources) {
        InJvmRelay relay = new InJvmRelay(
                Objects.requireNonNull(name, "name"),
                Objects.requireNonNull(store, "store"),
                Objects.requireNonNull(publisher, "publisher"),
                Objects.requireNonNull(options, "options"),
                Objects.requireNonNull(resources, "resources"));
        Relay core = new Relay(
                relay.store,
                relay.publisher,
                options.relay(),
                options.retryPolicy(),
                options.clock(),
                relay.listener());
        for (int i = 0; i < options.threads(); i++) {
            relay.thread(name + "-relay-" + i, () -> relay.relayLoop(core));
        }
        Sweeper sweeper = new Sweeper(relay.store, options.sweeper(), options.clock());
        relay.thread(name + "-sweeper", () -> relay.sweepLoop(sweeper));
        log.info("started in-JVM relay {} ({} thread(s), clock {})", name, options.threads(), options.clock());
        return relay;
    }

    private RelayListener listener() {
        return new RelayListener() {
            @Override
            public void onLeaseLost(OutboxEvent event) {
                leaseLost.add(event.id());
            }

            @Override
            public void onPublished(OutboxEvent event, java.time.Instant acknowledgedAt) {
                published.incrementAndGet();
            }
        };
    }

    private void thread(String threadName, Runnable body) {
        Thread thread = new Thread(body, threadName);
        thread.setDaemon(true);
        threads.add(thread);
        thread.start();
    }

    private void relayLoop(Relay relay) {
        while (running.get()) {
            try {
                RelayResult result = relay.runOnce();
                if (result.leased() == 0) {
                    pause(options.idlePause());
                }
            } catch (OutboxStoreException e) {
                if (!dead.get()) {
                    log.debug("in-JVM relay {}: store failed, backing off: {}", name, e.toString());
                }
                pause(options.idlePause());
            } catch (RuntimeException e) {
                log.warn("in-JVM relay {}: tick failed", name, e);
                pause(options.idlePause());
            }
        }
    }

    private void sweepLoop(Sweeper sweeper) {
        while (running.get()) {
            try {
                sweeper.runOnce();
            } catch (RuntimeException e) {
                log.debug("in-JVM relay {}: sweep failed: {}", name, e.toString());
            }
            pause(options.sweepInterval());
        }
    }

    private void pause(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running.set(false);
        }
    }

    /** The publisher the relay uses, for scripting faults (hang, ...). */
    public FaultyPublisher publisher() {
        return publisher;
    }

    /**
     * Arms a crash in the window between the broker's acknowledgement and the mark: the next batch the
     * broker acknowledges is handed back only after this relay has died, so it is never marked.
     *
     * @return completes with the acknowledged-but-unmarked events once the relay died
     */
    public CompletableFuture<List<OutboxEvent>> crashAfterNextAck() {
        CompletableFuture<List<OutboxEvent>> crashed = new CompletableFuture<>();
        AtomicBoolean armed = new AtomicBoolean(true);
        publisher.beforeMark(acknowledged -> {
            if (armed.compareAndSet(true, false)) {
                log.info(
                        "in-JVM relay {}: broker acknowledged {} event(s); dying before the mark (fault injected)",
                        name,
                        acknowledged.size());
                kill();
                crashed.complete(acknowledged);
            }
        });
        return crashed;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public boolean isAlive() {
        return running.get() && !dead.get();
    }

    @Override
    public void kill() {
        if (!dead.compareAndSet(false, true)) {
            return;
        }
        store.kill();
        running.set(false);
        threads.forEach(Thread::interrupt);
        // Like a dead process's sockets: its connections go away, but not on the caller's thread (which
        // may be the broker client's callback thread).
        Thread closer = new Thread(this::closeResources, name + "-closer");
        closer.setDaemon(true);
        closer.start();
    }

    @Override
    public Set<UUID> leaseLostIds() {
        return Set.copyOf(leaseLost);
    }

    /** How many events it published and marked sent. */
    public long publishedCount() {
        return published.get();
    }

    /** Stops leasing, lets the batches in flight finish (within the publish timeout and a grace), closes. */
    @Override
    public void close() {
        if (dead.get()) {
            return;
        }
        running.set(false);
        long deadline = System.nanoTime()
                + options.relay().publishTimeout().plusSeconds(10).toNanos();
        for (Thread thread : threads) {
            try {
                thread.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        if (dead.compareAndSet(false, true)) {
            publisher.heal();
            closeResources();
        }
    }

    private void closeResources() {
        try {
            publisher.close();
        } catch (RuntimeException e) {
            log.debug("closing the publisher of {} failed: {}", name, e.toString());
        }
        for (AutoCloseable resource : resources) {
            try {
                resource.close();
            } catch (Exception e) {
                log.debug("closing a resource of {} failed: {}", name, e.toString());
            }
        }
    }

    @Override
    public String toString() {
        return "in-JVM relay " + name;
    }
}
