package dev.outboxjava.console.internal;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Limits wrong credentials per client: after {@code limit} failed sign-ins from one address within a
 * minute, that address may not try again until the minute is over, so a credential cannot be guessed
 * at the speed of the network. The minute starts at the client's first failure; a successful sign-in
 * clears its count. Counts live in memory (per process), bounded by forgetting finished minutes.
 */
public final class SignInThrottle {

    /** The window the failures are counted in. */
    public static final Duration WINDOW = Duration.ofMinutes(1);
    /** Clients remembered at most; beyond, the finished windows are dropped first. */
    private static final int MAX_CLIENTS = 10_000;

    private final int limit;
    private final Clock clock;
    private final Map<String, Window> failures = new HashMap<>();

    private record Window(Instant start, int count) {}

    /**
     * @param limit failed sign-ins allowed per client per minute (1 or more)
     */
    public SignInThrottle(int limit, Clock clock) {
        if (limit < 1) {
            throw new IllegalArgumentException("the sign-in failure limit must be at least 1, was " + limit);
        }
        this.limit = limit;
        this.clock = clock;
    }

    /** How long {@code client} must wait before trying again; empty when it may try now. */
    public synchronized Optional<Duration> blockedFor(String client) {
        Instant now = clock.instant();
        Window window = failures.get(client);
        if (window == null || window.count() < limit) {
            return Optional.empty();
        }
        Instant ends = window.start().plus(WINDOW);
        if (!now.isBefore(ends)) {
            failures.remove(client);
            return Optional.empty();
        }
        return Optional.of(Duration.between(now, ends));
    }

    /** Counts a wrong credential from {@code client}. */
    public synchronized void failed(String client) {
        Instant now = clock.instant();
        if (failures.size() >= MAX_CLIENTS) {
            failures.values().removeIf(window -> !now.isBefore(window.start().plus(WINDOW)));
        }
        Window window = failures.get(client);
        if (window == null || !now.isBefore(window.start().plus(WINDOW))) {
            window = new Window(now, 0);
        }
        if (failures.size() < MAX_CLIENTS || failures.containsKey(client)) {
            failures.put(client, new Window(window.start(), window.count() + 1));
        }
    }

    /** Clears the count of {@code client} after a successful sign-in. */
    public synchronized void succeeded(String client) {
        failures.remove(client);
    }
}
