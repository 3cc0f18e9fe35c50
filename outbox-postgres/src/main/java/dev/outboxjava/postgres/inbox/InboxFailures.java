package dev.outboxjava.postgres.inbox;

import java.sql.SQLException;
import org.jooq.exception.DataAccessException;

/** Reads driver failures for messages (the outbox's own helper is specific to the outbox table). */
final class InboxFailures {

    private InboxFailures() {}

    static String sqlState(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql && sql.getSQLState() != null) {
                return sql.getSQLState();
            }
            if (t instanceof DataAccessException dae
                    && dae.sqlState() != null
                    && !"HY000".equals(dae.sqlState())
                    && !dae.sqlState().isEmpty()) {
                return dae.sqlState();
            }
        }
        return null;
    }

    static String rootMessage(Throwable error) {
        Throwable t = error;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        String message = t.getMessage();
        return message == null ? t.getClass().getSimpleName() : message.replace('\n', ' ');
    }
}
