package dev.outboxjava.spring.boot;

/**
 * The outbox table exists: its migrations ran (Flyway) or the opt-in initialisation created it. The
 * store depends on this bean when there is one.
 */
public final class OutboxSchemaReady {

    private final String how;

    OutboxSchemaReady(String how) {
        this.how = how;
    }

    /** How the table was put in place, e.g. "Flyway (history table outbox_schema_history)". */
    public String how() {
        return how;
    }
}
