package dev.outboxjava.it.faults;

import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which events a fault could have duplicated. A duplicate is only legitimate for an event that was in
 * flight (leased) while a fault struck: a relay killed with its batch acknowledged but unmarked, a
 * publish that timed out although the broker took it, a lease that expired under a hung publisher
 * or a skewed clock. While at least one fault window is open, a background thread samples the ids in
 * flight every {@code interval}; an id seen in flight during a window is <em>exposed</em>, and the
 * checker accepts its duplicates as explained. A duplicate of an event that was never exposed is
 * reported as unexplained.
 */
public final class ExposureLog implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ExposureLog.class);

    private final OutboxTableProbe probe;
    private final long intervalMillis;
    private final Map<UUID, FaultKind> exposed = new ConcurrentHashMap<>();
    private final Map<FaultKind, AtomicInteger> open = new ConcurrentHashMap<>();
    private final Thread sampler;
    private volatile boolean closed;

    /**
     * @param probe    reads the ids in flight
     * @param interval how often to sample while a window is open
     */
    public ExposureLog(OutboxTableProbe probe, java.time.Duration interval) {
        this.probe = Objects.requireNonNull(probe, "probe");
        this.intervalMillis = Math.max(10, interval.toMillis());
        this.sampler = new Thread(this::sampleWhileOpen, "fault-exposure-sampler");
        this.sampler.setDaemon(true);
        this.sampler.start();
    }

    /** Opens a window for a fault of {@code kind} and samples at once. Pair with {@link #close(FaultKind)}. */
    public void open(FaultKind kind) {
        open.computeIfAbsent(kind, k -> new AtomicInteger()).incrementAndGet();
        sample();
    }

    /** Samples once more and closes a window opened by {@link #open(FaultKind)}. */
    public void close(FaultKind kind) {
        sample();
        AtomicInteger count = open.get(kind);
        if (count != null) {
            count.decrementAndGet();
        }
    }

    /** Samples the ids in flight now (also outside a window), attributing them to {@code kind}. */
    public void sample(FaultKind kind) {
        sampleInto(kind);
    }

    /** The exposed ids and the fault kind that first exposed each (a copy). */
    public Map<UUID, FaultKind> exposed() {
        return Map.copyOf(exposed);
    }

    private void sample() {
        FaultKind kind = open.entrySet().stream()
                .filter(entry -> entry.getValue().get() > 0)
                .map(Map.Entry::getKey)
                .findFirst()
                .orElse(null);
        if (kind != null) {
            sampleInto(kind);
        }
    }

    private void sampleInto(FaultKind kind) {
        try {
            Set<UUID> inFlight = probe.inFlightIds();
            inFlight.forEach(id -> exposed.putIfAbsent(id, kind));
        } catch (RuntimeException e) {
            log.debug("exposure sample failed: {}", e.toString());
        }
    }

    private void sampleWhileOpen() {
        while (!closed) {
            sample();
            try {
                Thread.sleep(intervalMillis);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        sampler.interrupt();
    }
}
