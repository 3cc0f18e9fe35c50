package dev.outboxjava.core;

import java.time.Instant;

/**
 * The rule for the times an event carries ({@code availableAt}): years 1 to 9999 UTC. PostgreSQL's
 * {@code timestamptz} and the ISO-8601 / RFC 3339 text the brokers carry hold those and no more;
 * {@link Instant#MAX} and its like would fail at INSERT, far from the call that set them.
 */
final class StorableInstant {

    /** The earliest instant accepted: 0001-01-01T00:00:00Z. */
    static final Instant MIN = Instant.parse("0001-01-01T00:00:00Z");
    /** The latest instant accepted: 9999-12-31T23:59:59.999999Z (PostgreSQL keeps microseconds). */
    static final Instant MAX = Instant.parse("9999-12-31T23:59:59.999999Z");

    private StorableInstant() {}

    /** @throws InvalidEventException naming {@code field} when {@code value} lies outside years 1-9999 */
    static void require(String field, Instant value) {
        if (value.isBefore(MIN) || value.isAfter(MAX)) {
            throw new InvalidEventException(
                    field,
                    value + " is outside the range the outbox can store and " + "publish (" + MIN + " to " + MAX + ")");
        }
    }
}
