package dev.outboxjava.postgres.internal;

import static dev.outboxjava.postgres.internal.OutboxTable.statusLiteral;
import static dev.outboxjava.postgres.internal.PreparedSql.bind;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.InvalidEventException;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.OutboxException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.IntFunction;
import org.jooq.ConnectionProvider;
import org.jooq.Field;
import org.jooq.Name;
import org.jooq.Record;
import org.jooq.RowN;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * Appends events with multi-row INSERTs on the caller's connection; it never commits, rolls back or
 * changes auto-commit — the caller's transaction decides.
 *
 * <p>Built with jOOQ, run on plain JDBC: this runs inside every producer transaction, so it should cost
 * about what a hand-written prepared INSERT costs. The text for a row count is rendered once
 * ({@link PreparedSql}) and reused, so pgjdbc finds it in the connection's statement cache (and
 * server-prepares it after {@code prepareThreshold} executions); values are bound with their types, the
 * status literal is inlined, and empty headers go as the constant {@code {}} without Jackson.
 *
 * <p>It does not read the rows' sequences back ({@code RETURNING}): the database assigns them, the
 * relay orders by them, and hardly any caller needs them at append time, while reading them back cost
 * the saturated producers of benchmark scenario 5 about 6 % of their transactions (nothing on the
 * server: the driver's result handling). {@code find(id)} returns an event with its sequence.
 */
public final class EventInsert {

    /** Rows per INSERT: 15 bind values each keeps a statement far below the driver's 32,767 limit. */
    public static final int ROWS_PER_STATEMENT = 1000;

    /** Texts always kept for these row counts (and for full chunks). */
    private static final int CACHED_ROW_COUNTS = 64;

    /** The columns a row sets, in the order {@link #insertChunk} binds them (status is a literal). */
    private static final List<Field<?>> IN_PLACE_COLUMNS = List.of(
            OutboxTable.ID,
            OutboxTable.TYPE,
            OutboxTable.SOURCE,
            OutboxTable.EVENT_KEY,
            OutboxTable.DESTINATION,
            OutboxTable.ROUTING_KEY,
            OutboxTable.CONTENT_TYPE,
            OutboxTable.SUBJECT,
            OutboxTable.DATA_SCHEMA,
            OutboxTable.PAYLOAD,
            OutboxTable.HEADERS,
            OutboxTable.STATUS,
            OutboxTable.ATTEMPTS,
            OutboxTable.MAX_ATTEMPTS,
            OutboxTable.NEXT_ATTEMPT_AT,
            OutboxTable.CREATED_AT);

    /** The append-only log's columns: no state columns (the side tables hold an event's state). */
    private static final List<Field<?>> LOG_COLUMNS = IN_PLACE_COLUMNS.stream()
            .filter(column -> column != OutboxTable.STATUS && column != OutboxTable.ATTEMPTS)
            .toList();

    /** One row's values: a typed placeholder per column, the status inlined. */
    private static RowN row(List<Field<?>> columns) {
        return DSL.row(columns.stream()
                .<Field<?>>map(column ->
                        column == OutboxTable.STATUS ? statusLiteral(EventStatus.PENDING) : bind(column.getDataType()))
                .toList());
    }

    private final OutboxTable table;
    /** The function that refuses an id already in the table, for a table without a unique id (else null). */
    private final Identifiers.TableName idTaken;

    private final List<Field<?>> columns;
    private final RowN row;
    /** The plain INSERT's texts: the in-place table's, or the log's for events whose ids the builder drew. */
    private final Texts plain;
    /** The log's INSERT that looks each id up first, for events given their id (else null). */
    private final Texts lookingUp;

    /** Appends to a table whose primary key refuses an id already in it (the in-place layout). */
    public EventInsert(OutboxTable table) {
        this(table, null);
    }

    /**
     * Appends to {@code table}; with {@code idTaken} (the append-only layout, whose log has no state columns
     * and, partitioned, cannot have a unique key on the id alone) a row whose id was given rather than drawn
     * by the builder ({@link OutboxEvent#drawnId()}) is first looked up by id, and a row whose id is already in
     * the table makes that function fail the INSERT as a unique violation, as the in-place layout's key does.
     * A drawn id is new by construction, so its row is inserted as it is: the lookup would probe every
     * partition of the log for each event and cost the append about a tenth of a producer transaction.
     */
    public EventInsert(OutboxTable table, Identifiers.TableName idTaken) {
        this.table = table;
        this.idTaken = idTaken;
        this.columns = idTaken == null ? IN_PLACE_COLUMNS : LOG_COLUMNS;
        this.row = row(columns);
        // The first rendering in a JVM loads jOOQ (several hundred milliseconds): here, when the writer
        // is created, rather than inside the first producer transaction.
        this.plain = new Texts(rows -> rendered(rows, false));
        this.lookingUp = idTaken == null ? null : new Texts(rows -> rendered(rows, true));
    }

    /**
     * Inserts the events, one statement (one round trip) per {@value #ROWS_PER_STATEMENT}.
     *
     * @return the events as inserted (their sequences are not read back: 0)
     * @throws dev.outboxjava.core.InvalidEventException before any statement, when an event cannot be appended
     * @throws dev.outboxjava.core.OutboxStoreException naming the table when the INSERT fails
     */
    public List<OutboxEvent> insert(Connection connection, List<OutboxEvent> events) {
        if (!checkedIsEmpty(events)) {
            insertChecked(connection, events);
        }
        return events;
    }

    /**
     * As {@link #insert(Connection, List)}, on the connection a jOOQ configuration's provider hands out
     * — inside {@code dsl.transaction(...)}, the transaction's own — released again afterwards.
     */
    public List<OutboxEvent> insert(ConnectionProvider connections, List<OutboxEvent> events) {
        if (checkedIsEmpty(events)) {
            return events;
        }
        Connection connection;
        try {
            connection = connections.acquire();
        } catch (RuntimeException e) {
            throw Failures.wrap(attempted(events), table.tableName(), e);
        }
        if (connection == null) {
            throw Failures.wrap(
                    attempted(events),
                    table.tableName(),
                    new IllegalStateException(
                            "the jOOQ configuration has no JDBC connection; use DSL.using(dataSource or connection, ...)"));
        }
        try {
            insertChecked(connection, events);
            return events;
        } finally {
            connections.release(connection);
        }
    }

    // Every refusal happens before the first statement: a failed INSERT would abort the caller's
    // transaction, an exception from here leaves it usable. The writer checks each event's content
    // (AppendableEvents) before it adds trace headers; here only what the INSERT itself relies on.
    private static boolean checkedIsEmpty(List<OutboxEvent> events) {
        if (events == null) {
            throw new InvalidEventException("events", "is null; pass List.of() when there is nothing to append");
        }
        Set<UUID> ids = new HashSet<>();
        for (OutboxEvent event : events) {
            if (event == null) {
                throw new InvalidEventException("events", "an element is null");
            }
            if (!ids.add(event.id())) {
                throw new InvalidEventException(
                        "id", "event id " + event.id() + " is twice in this append; every event needs a new id");
            }
            if (event.status() != EventStatus.PENDING) {
                throw new InvalidEventException(
                        "status",
                        "only new pending events can be appended; event " + event.id() + " is " + event.status());
            }
        }
        return events.isEmpty();
    }

    private void insertChecked(Connection connection, List<OutboxEvent> events) {
        try {
            for (int from = 0; from < events.size(); from += ROWS_PER_STATEMENT) {
                insertChunk(connection, events, from, Math.min(events.size(), from + ROWS_PER_STATEMENT));
            }
        } catch (OutboxException e) {
            throw e;
        } catch (SQLException | RuntimeException e) {
            throw Failures.wrap(attempted(events), table.tableName(), e);
        }
    }

    private static String attempted(List<OutboxEvent> events) {
        return "append " + events.size() + " event(s)";
    }

    private void insertChunk(Connection connection, List<OutboxEvent> events, int from, int to) throws SQLException {
        int rows = to - from;
        Texts texts = plain;
        for (int i = from; i < to && texts == plain && lookingUp != null; i++) {
            if (!events.get(i).drawnId()) {
                texts = lookingUp;
            }
        }
        try (PreparedStatement statement = connection.prepareStatement(texts.sql(rows))) {
            int p = 1;
            for (int i = from; i < to; i++) {
                OutboxEvent event = events.get(i);
                statement.setObject(p++, event.id());
                statement.setString(p++, event.type());
                statement.setString(p++, event.source());
                statement.setString(p++, event.key().orElse(null));
                statement.setString(p++, event.destination());
                statement.setString(p++, event.routingKey());
                statement.setString(p++, event.contentType());
                statement.setString(p++, event.subject().orElse(null));
                statement.setString(p++, event.dataSchema().orElse(null));
                statement.setBytes(p++, event.payload());
                statement.setString(p++, HeadersJson.write(event.headers()));
                if (idTaken == null) {
                    statement.setInt(p++, event.attempts());
                }
                statement.setInt(p++, event.maxAttempts());
                statement.setObject(p++, Jdbc.timestamptz(event.nextAttemptAt()));
                statement.setObject(p++, Jdbc.timestamptz(event.createdAt()));
            }
            statement.executeUpdate();
        }
    }

    /** The plain INSERT text for {@code rows} rows (see {@link Texts#sql}). */
    String sql(int rows) {
        return plain.sql(rows);
    }

    /** The INSERT text for {@code rows} rows that looks their ids up first (append-only layout only). */
    String lookingUpSql(int rows) {
        return lookingUp.sql(rows);
    }

    /**
     * One INSERT's texts by row count; for up to {@value #CACHED_ROW_COUNTS} rows and for a full chunk the
     * same instance on every call. Rendering with jOOQ takes about a millisecond per hundred rows, more than
     * the INSERT itself may cost, so the text is jOOQ's one-row text extended by its further-row part: the
     * same text jOOQ renders for that many rows, in microseconds.
     */
    private static final class Texts {
        // index: row count; the last slot holds a full chunk's text
        private final AtomicReferenceArray<String> texts = new AtomicReferenceArray<>(CACHED_ROW_COUNTS + 2);
        /**
         * jOOQ's text for one row cut where a further row goes: the head (up to and with the first row), what
         * each further row adds (the separator and the row) and the tail after the rows.
         */
        private final String head;

        private final String eachFurtherRow;
        private final String tail;

        Texts(IntFunction<String> rendered) {
            String oneRow = rendered.apply(1);
            String twoRows = rendered.apply(2);
            int cut = 0;
            while (cut < oneRow.length() && oneRow.charAt(cut) == twoRows.charAt(cut)) {
                cut++;
            }
            this.head = oneRow.substring(0, cut);
            this.eachFurtherRow = twoRows.substring(cut, cut + twoRows.length() - oneRow.length());
            this.tail = oneRow.substring(cut);
            String threeRows = rendered.apply(3);
            if (!extended(3).equals(threeRows)) {
                throw new IllegalStateException(
                        "jOOQ renders a multi-row INSERT that is not its one-row text with rows added: " + threeRows);
            }
        }

        String sql(int rows) {
            int slot = rows <= CACHED_ROW_COUNTS ? rows : rows == ROWS_PER_STATEMENT ? CACHED_ROW_COUNTS + 1 : -1;
            if (slot < 0) {
                return extended(rows);
            }
            String text = texts.get(slot);
            if (text == null) {
                text = extended(rows);
                texts.set(slot, text);
            }
            return text;
        }

        private String extended(int rows) {
            StringBuilder text = new StringBuilder(head.length() + (rows - 1) * eachFurtherRow.length() + tail.length())
                    .append(head);
            for (int row = 1; row < rows; row++) {
                text.append(eachFurtherRow);
            }
            return text.append(tail).toString();
        }
    }

    /** jOOQ's own text for {@code rows} rows of the plain INSERT. */
    String rendered(int rows) {
        return rendered(rows, false);
    }

    /** jOOQ's own text for {@code rows} rows, the ids looked up first or not. */
    String rendered(int rows, boolean lookUpIds) {
        List<RowN> values = Collections.nCopies(rows, row);
        if (!lookUpIds) {
            return PreparedSql.render(DSL.insertInto(table.table(), columns).valuesOfRows(values));
        }
        Table<Record> v = DSL.values(values.toArray(RowN[]::new))
                .as("v", columns.stream().map(Field::getName).toArray(String[]::new));
        Field<UUID> id = DSL.field(DSL.name("v", OutboxTable.ID.getName()), SQLDataType.UUID);
        Table<Record> x = table.table().as("x");
        Name function = idTaken.schema()
                .map(schema -> DSL.name(schema, idTaken.table()))
                .orElse(DSL.name(idTaken.table()));
        Field<Boolean> fresh = DSL.when(
                        DSL.exists(DSL.selectOne()
                                .from(x)
                                .where(OutboxTable.column(x, OutboxTable.ID).eq(id))),
                        DSL.function(function, SQLDataType.BOOLEAN, id))
                .otherwise(DSL.inline(true));
        return PreparedSql.render(DSL.insertInto(table.table(), columns)
                .select(DSL.select(v.fields()).from(v).where(DSL.condition(fresh))));
    }
}
