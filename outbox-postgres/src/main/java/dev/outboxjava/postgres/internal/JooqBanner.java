package dev.outboxjava.postgres.internal;

/**
 * Keeps jOOQ's logo and tip of the day out of the application's start-up log: jOOQ is how this library
 * builds its statements, not a choice the application made. Sets jOOQ's own switches
 * ({@code org.jooq.no-logo}, {@code org.jooq.no-tips}) unless the application set them; jOOQ reads them
 * when it renders its first statement, so the entry points call this before they touch jOOQ.
 */
public final class JooqBanner {

    static final String NO_LOGO = "org.jooq.no-logo";
    static final String NO_TIPS = "org.jooq.no-tips";

    private JooqBanner() {}

    /** Switches the banner off unless the application decided otherwise. */
    public static void silence() {
        try {
            if (System.getProperty(NO_LOGO) == null) {
                System.setProperty(NO_LOGO, "true");
            }
            if (System.getProperty(NO_TIPS) == null) {
                System.setProperty(NO_TIPS, "true");
            }
        } catch (SecurityException e) {
            // a locked-down JVM keeps the banner; nothing else depends on it
        }
    }
}
