package dev.outboxjava.postgres.internal.appendlog;

import static dev.outboxjava.postgres.internal.OutboxTable.ATTEMPTS;
import static dev.outboxjava.postgres.internal.OutboxTable.CREATED_AT;
import static dev.outboxjava.postgres.internal.OutboxTable.DESTINATION;
import static dev.outboxjava.postgres.internal.OutboxTable.EVENT_KEY;
import static dev.outboxjava.postgres.internal.OutboxTable.ID;
import static dev.outboxjava.postgres.internal.OutboxTable.LAST_ERROR;
import static dev.outboxjava.postgres.internal.OutboxTable.LEASED_AT;
import static dev.outboxjava.postgres.internal.OutboxTable.LEASE_ID;
import static dev.outboxjava.postgres.internal.OutboxTable.NEXT_ATTEMPT_AT;
import static dev.outboxjava.postgres.internal.OutboxTable.SEQ;
import static dev.outboxjava.postgres.internal.OutboxTable.STATUS;
import static dev.outboxjava.postgres.internal.OutboxTable.TYPE;
import static dev.outboxjava.postgres.internal.OutboxTable.statusLiteral;
import static dev.outboxjava.postgres.internal.PreparedSql.bind;
import static dev.outboxjava.postgres.internal.appendlog.TableGenerations.GEN;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.name;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.postgres.internal.Identifiers;
import dev.outboxjava.postgres.internal.LogLayoutDdl;
import dev.outboxjava.postgres.internal.PreparedSql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * The append-only layout's parked events in two generations of the state table ({@link TableGenerations}).
 * Under per-key ordering a new event whose key is held gets a pending state row, which its lease turns in
 * flight and its publication deletes: three versions of a row that a held horizon keeps, with their index
 * entries, for every later lease to walk. Those rows go to the generation being written; every other state
 * row (a retry, a schedule, a dead letter: what may wait for long) to the partition {@link #KEPT}, which is
 * never truncated.
 *
 * <p>The idle generation is truncated once nothing in it is in flight: an event leased from it keeps it
 * until its outcome is marked (or the sweeper sets it back to pending). What is left there then, at most
 * {@link #MOVE_LIMIT} rows (events still behind their key, a parked event that failed since), is first
 * copied to the generation being written, dead letters to {@link #KEPT}, so that one slow key does not keep
 * a generation for minutes; more than that (a broker down for a while parks much of the backlog), and the
 * generation waits until the relays have worked through it.
 */
public final class ParkingGenerations extends TableGenerations {

    /** The generation of the state rows that are not parked behind a key: never truncated. */
    public static final short KEPT = -1;
    /** At most this many rows are copied out of an idle generation so that it can be truncated. */
    static final int MOVE_LIMIT = 1_000;

    private static final Field<Boolean> IN_FLIGHT = field(name("in_flight"), SQLDataType.BOOLEAN);
    private static final Field<Integer> ROWS = field(name("rows"), SQLDataType.INTEGER);

    private final String[] leftSql = new String[2];
    private final String[] moveSql = new String[2];

    public ParkingGenerations(Identifiers.TableName table) {
        super(table, new Identifiers.TableName[] {
            LogLayoutDdl.stateGeneration(table, 0), LogLayoutDdl.stateGeneration(table, 1)
        });
        Table<Record> state = LogSql.tableOf(LogLayoutDdl.stateTable(table));
        Field<?>[] columns = {
            ID,
            SEQ,
            EVENT_KEY,
            STATUS,
            ATTEMPTS,
            LAST_ERROR,
            NEXT_ATTEMPT_AT,
            LEASED_AT,
            LEASE_ID,
            TYPE,
            DESTINATION,
            CREATED_AT
        };
        for (int generation = 0; generation < 2; generation++) {
            Table<Record> idle = LogSql.tableOf(LogLayoutDdl.stateGeneration(table, generation));
            // one row more than may be moved tells that there are too many, without reading them all
            Table<?> first = DSL.select(STATUS)
                    .from(idle)
                    .limit(DSL.inline(MOVE_LIMIT + 1))
                    .asTable("x");
            leftSql[generation] = PreparedSql.render(DSL.select(
                            DSL.coalesce(
                                            DSL.boolOr(DSL.field(STATUS).eq(statusLiteral(EventStatus.IN_FLIGHT))),
                                            DSL.inline(false))
                                    .as(IN_FLIGHT.getUnqualifiedName()),
                            DSL.count().as(ROWS.getUnqualifiedName()))
                    .from(first));
            Field<?>[] withGeneration = Arrays.copyOf(columns, columns.length + 1);
            withGeneration[columns.length] = GEN;
            Field<?>[] values = Arrays.copyOf(columns, columns.length + 1);
            values[columns.length] = DSL.when(STATUS.eq(statusLiteral(EventStatus.FAILED)), DSL.inline(KEPT))
                    .otherwise(bind(SQLDataType.SMALLINT));
            moveSql[generation] = PreparedSql.render(DSL.insertInto(state)
                    .columns(withGeneration)
                    .select(DSL.select(values).from(idle)));
        }
    }

    @Override
    boolean empty(Connection connection, int idle, short current) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(leftSql[idle]);
                ResultSet rs = statement.executeQuery()) {
            rs.next();
            int rows = rs.getInt(2);
            if (rs.getBoolean(1) || rows > MOVE_LIMIT) {
                return false;
            }
            if (rows == 0) {
                return true;
            }
        }
        try (PreparedStatement statement = connection.prepareStatement(moveSql[idle])) {
            statement.setShort(1, current);
            statement.executeUpdate();
        }
        return true;
    }

    @Override
    String what() {
        return "parking";
    }
}
