package dev.outboxjava.it.faults;

import dev.outboxjava.core.OutboxEvent;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * How a producer appends events inside its open transaction — the adapter's own write API, e.g.
 * {@code (connection, events) -> outboxWriter.append(connection, events)}. Must not commit or roll back.
 */
@FunctionalInterface
public interface EventAppender {

    /** Appends {@code events} on {@code connection}, in the transaction it is in. */
    void append(Connection connection, List<OutboxEvent> events) throws SQLException;
}
