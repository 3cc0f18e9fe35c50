package dev.outboxjava.postgres.internal.inplace;

import dev.outboxjava.postgres.internal.Identifiers;
import dev.outboxjava.postgres.internal.PreparedSql;
import dev.outboxjava.postgres.internal.SchemaDdl;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * Finds which of the per-key lease's two indexes a table lacks.
 *
 * <p>The shipped migration creates the table for unordered relays only; a team that turns per-key
 * ordering on and keeps that migration gets a lease that works but probes each candidate's key without
 * an index, and slows down as the table grows. Nothing fails, so this check is what tells them. It looks
 * the indexes up by the names {@link SchemaDdl} gives them, and counts an index that is not valid (a
 * {@code CREATE INDEX CONCURRENTLY} that failed) as missing, since the planner cannot use it.
 */
public final class PerKeyIndexes {

    private static final String SQL = validIndexesQuery();

    private final String quotedTable;
    private final List<String> expected;

    public PerKeyIndexes(Identifiers.TableName table) {
        this.quotedTable = table.quoted();
        this.expected = List.of(SchemaDdl.keyGuardIndex(table), SchemaDdl.keyHeldIndex(table));
    }

    private static String validIndexesQuery() {
        Table<?> x = DSL.table(DSL.name("pg_index")).as("x");
        Table<?> i = DSL.table(DSL.name("pg_class")).as("i");
        return PreparedSql.render(DSL.select(
                        DSL.field(DSL.name("i", "relname"), SQLDataType.OTHER).cast(SQLDataType.CLOB))
                .from(x)
                .join(i)
                .on(DSL.field(DSL.name("i", "oid"), SQLDataType.OTHER)
                        .eq(DSL.field(DSL.name("x", "indexrelid"), SQLDataType.OTHER)))
                .where(DSL.field(DSL.name("x", "indrelid"), SQLDataType.OTHER)
                        .eq(DSL.function("to_regclass", SQLDataType.OTHER, PreparedSql.bind(SQLDataType.CLOB))))
                .and(DSL.field(DSL.name("x", "indisvalid"), SQLDataType.BOOLEAN)));
    }

    /** The expected index names the table has no valid index of, in DDL order; empty when both are there. */
    public List<String> missing(Connection connection) throws SQLException {
        Set<String> present = new HashSet<>();
        try (PreparedStatement statement = connection.prepareStatement(SQL)) {
            statement.setString(1, quotedTable);
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    present.add(rows.getString(1));
                }
            }
        }
        List<String> missing = new ArrayList<>(expected);
        missing.removeAll(present);
        return missing;
    }
}
