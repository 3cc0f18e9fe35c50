// Fixture for ArchitectureTest: deliberately breaks "no core class reads the time directly".
package dev.outboxjava.core.archviolation;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Date;

/** A core class that reads the system clock in every way the rule forbids. */
public final class CoreReadingSystemTime {

    private CoreReadingSystemTime() {}

    public static Instant instantNow() {
        return Instant.now();
    }

    public static long millisNow() {
        return System.currentTimeMillis();
    }

    public static LocalDateTime localNow() {
        return LocalDateTime.now();
    }

    public static ZonedDateTime zonedNow() {
        return ZonedDateTime.now(ZoneOffset.UTC);
    }

    public static Date dateNow() {
        return new Date();
    }
}
