package dev.outboxjava.it.faults;

import dev.outboxjava.core.EventStatus;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * Reads an outbox table of the PostgreSQL schema ({@code id, seq, event_key, status}) directly, the way
 * the checker needs it: the stored rows (id, key, sequence, status, attempts), the ids in flight now, the counts by state. Read-only.
 */
public final class OutboxTableProbe {

    private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]*(\\.[a-z_][a-z0-9_]*)?");

    /**
     * One stored event as the checker sees it.
     *
     * @param key      the event's key, if any
     * @param sequence the store-assigned sequence (per-key order is this order)
     * @param status   its status
     * @param attempts publish attempts that failed so far (a failure the broker in fact took is a duplicate)
     */
    public record StoredEvent(Optional<String> key, long sequence, EventStatus status, int attempts) {}

    private final DataSource dataSource;
    private final String quotedTable;

    /**
     * A probe of an in-place table.
     *
     * @param dataSource connections to the database of the outbox table
     * @param table      {@code table} or {@code schema.table}, lower case
     */
    public OutboxTableProbe(DataSource dataSource, String table) {
        this(dataSource, table, false);
    }

    /**
     * @param dataSource connections to the database of the outbox table
     * @param table      {@code table} or {@code schema.table}, lower case
     * @param appendLog  whether the table is in the append-only layout, whose log keeps each event as
     *                   appended: the probe then reads the view of every event, {@code <table>_events}
     */
    public OutboxTableProbe(DataSource dataSource, String table, boolean appendLog) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        if (!IDENTIFIER.matcher(Objects.requireNonNull(table, "table")).matches()) {
            throw new IllegalArgumentException(
                    "table must be a lower-case identifier, optionally schema-qualified, " + "was '" + table + "'");
        }
        String relation = appendLog ? table + "_events" : table;
        this.quotedTable = "\"" + relation.replace(".", "\".\"") + "\"";
    }

    /** Every row of the table, by id. */
    public Map<UUID, StoredEvent> events() {
        Map<UUID, StoredEvent> events = new HashMap<>();
        query("SELECT id, event_key, seq, status, attempts FROM " + quotedTable, rows -> {
            while (rows.next()) {
                events.put(
                        rows.getObject(1, UUID.class),
                        new StoredEvent(
                                Optional.ofNullable(rows.getString(2)),
                                rows.getLong(3),
                                status(rows.getString(4)),
                                rows.getInt(5)));
            }
        });
        return events;
    }

    /** The ids of the events in flight now. */
    public Set<UUID> inFlightIds() {
        Set<UUID> ids = new HashSet<>();
        query("SELECT id FROM " + quotedTable + " WHERE status = 'in_flight'", rows -> {
            while (rows.next()) {
                ids.add(rows.getObject(1, UUID.class));
            }
        });
        return ids;
    }

    /** How many rows are in each state (every state present). */
    public Map<EventStatus, Long> countByStatus() {
        Map<EventStatus, Long> counts = new EnumMap<>(EventStatus.class);
        for (EventStatus status : EventStatus.values()) {
            counts.put(status, 0L);
        }
        query("SELECT status, count(*) FROM " + quotedTable + " GROUP BY status", rows -> {
            while (rows.next()) {
                counts.put(status(rows.getString(1)), rows.getLong(2));
            }
        });
        return counts;
    }

    private static EventStatus status(String value) {
        for (EventStatus status : EventStatus.values()) {
            if (status.databaseValue().equals(value)) {
                return status;
            }
        }
        throw new IllegalStateException("unknown status '" + value + "' in the outbox table");
    }

    private interface RowReader {
        void read(ResultSet rows) throws SQLException;
    }

    private void query(String sql, RowReader reader) {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setFetchSize(10_000);
            connection.setAutoCommit(false); // fetch size needs a transaction
            try (ResultSet rows = statement.executeQuery()) {
                reader.read(rows);
            }
            connection.commit();
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read outbox table " + quotedTable + ": " + e.getMessage(), e);
        }
    }
}
