package dev.outboxjava.core.internal;

import java.security.SecureRandom;
import java.time.Clock;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Time-ordered UUIDs (RFC 9562, version 7): 48 bits of Unix milliseconds, then random bits, so new
 * ids land at the right edge of the primary-key index instead of splitting pages all over it.
 *
 * <p>Written here rather than taken from a library because the core depends on the JDK and
 * slf4j only, so a service can take it without pulling in anything else, and the JDK's {@code UUID} offers
 * random (v4) and name-based (v3) ids only. Within one millisecond the
 * 12-bit {@code rand_a} field is used as a counter (RFC 9562 method 1) so ids from one generator
 * stay strictly increasing even when the clock stands still.
 */
public final class UuidV7 {

    private static final SecureRandom RANDOM = new SecureRandom();
    /** Last issued (millis << 12 | counter), so ids from this JVM never go backwards. */
    private static final AtomicLong LAST = new AtomicLong();

    private UuidV7() {}

    /** A new version-7 UUID whose timestamp comes from {@code clock}. */
    public static UUID next(Clock clock) {
        long candidate = clock.millis() << 12;
        long stamp = LAST.updateAndGet(last -> candidate > last ? candidate : last + 1);
        long millis = stamp >>> 12;
        long counter = stamp & 0xFFF;
        long msb = (millis << 16) | (0x7L << 12) | counter;
        long lsb = (RANDOM.nextLong() & 0x3FFF_FFFF_FFFF_FFFFL) | 0x8000_0000_0000_0000L;
        return new UUID(msb, lsb);
    }

    /** The Unix milliseconds a version-7 UUID carries. */
    public static long timestampMillis(UUID uuid) {
        return uuid.getMostSignificantBits() >>> 16;
    }
}
