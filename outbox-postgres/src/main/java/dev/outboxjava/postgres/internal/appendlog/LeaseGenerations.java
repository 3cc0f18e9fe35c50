package dev.outboxjava.postgres.internal.appendlog;

import dev.outboxjava.postgres.internal.Identifiers;
import dev.outboxjava.postgres.internal.LogLayoutDdl;
import dev.outboxjava.postgres.internal.PreparedSql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.jooq.impl.DSL;

/**
 * The append-only layout's lease table in two generations ({@link TableGenerations}): every published
 * batch deletes its lease row, and the per-key lease reads every lease row for the keys in flight, so
 * under a held horizon it would read all of them. The idle generation is truncated once nothing in it is
 * in flight: a lease row still there (a relay slow to mark, or gone until the sweeper moves its row) keeps
 * its generation until it has left.
 */
public final class LeaseGenerations extends TableGenerations {

    private final String[] anySql = new String[2];

    public LeaseGenerations(Identifiers.TableName table) {
        super(table, new Identifiers.TableName[] {
            LogLayoutDdl.leaseGeneration(table, 0), LogLayoutDdl.leaseGeneration(table, 1)
        });
        for (int generation = 0; generation < 2; generation++) {
            anySql[generation] = PreparedSql.render(DSL.selectOne()
                    .from(LogSql.tableOf(LogLayoutDdl.leaseGeneration(table, generation)))
                    .limit(DSL.inline(1)));
        }
    }

    @Override
    boolean empty(Connection connection, int idle, short current) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(anySql[idle]);
                ResultSet rs = statement.executeQuery()) {
            return !rs.next();
        }
    }

    @Override
    String what() {
        return "lease";
    }
}
