package dev.outboxjava.relayapp.internal.cli;

/** Exit codes scripts can rely on. */
public final class ExitCodes {
    /** Done. */
    public static final int OK = 0;
    /** The operation failed (e.g. no such event, an id that is not a dead letter, a statement failed). */
    public static final int FAILED = 1;
    /**
     * Wrong command line or settings (unknown key, invalid value, missing required setting, the outbox
     * table missing, the HTTP port in use, {@code --table} missing with many outboxes or not one of them).
     */
    public static final int USAGE = 2;
    /** The database cannot be reached. */
    public static final int DATABASE_UNREACHABLE = 3;
    /** {@code status}: the worker would not be ready (its readiness check says DOWN). */
    public static final int NOT_READY = 4;

    /** Every exit code and its meaning, for {@code --help}. */
    public static java.util.Map<String, String> descriptions() {
        java.util.Map<String, String> codes = new java.util.LinkedHashMap<>();
        codes.put(String.valueOf(OK), "done (status: ready)");
        codes.put(String.valueOf(FAILED), "the operation failed (no such event, an id that is not a dead letter, ...)");
        codes.put(String.valueOf(USAGE), "wrong usage or settings, the outbox table missing, the HTTP port in use");
        codes.put(String.valueOf(DATABASE_UNREACHABLE), "database unreachable");
        codes.put(String.valueOf(NOT_READY), "status: not ready");
        return java.util.Collections.unmodifiableMap(codes);
    }

    private ExitCodes() {}
}
