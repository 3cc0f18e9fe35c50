package dev.outboxjava.worker.internal.cli;

/** Exit codes scripts can rely on. */
public final class ExitCodes {
    /** Done. */
    public static final int OK = 0;
    /** The operation failed (e.g. nothing to show, the table is missing, a statement failed). */
    public static final int FAILED = 1;
    /** Wrong command line or settings (unknown key, invalid value, missing required setting). */
    public static final int USAGE = 2;
    /** The database cannot be reached. */
    public static final int DATABASE_UNREACHABLE = 3;

    private ExitCodes() {
    }
}
