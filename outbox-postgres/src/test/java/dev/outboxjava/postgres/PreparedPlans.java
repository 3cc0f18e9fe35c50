package dev.outboxjava.postgres;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/** EXPLAIN of a hot-path statement's exact JDBC text, PREPAREd as pgjdbc's server-side statements are. */
final class PreparedPlans {

    private PreparedPlans() {}

    /**
     * The plan PostgreSQL picks for {@code jdbcSql} under {@code planCacheMode} ({@code force_custom_plan}
     * or {@code force_generic_plan}); nothing is executed.
     *
     * @param arguments the EXECUTE argument list as SQL literals, e.g. {@code 'a-uuid', 100}
     */
    static String explain(DataSource dataSource, String jdbcSql, String planCacheMode, String arguments)
            throws SQLException {
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("SET plan_cache_mode = " + planCacheMode);
            statement.execute("PREPARE explained AS " + numberedParameters(jdbcSql));
            try (ResultSet rs = statement.executeQuery("EXPLAIN EXECUTE explained(" + arguments + ")")) {
                StringBuilder plan = new StringBuilder();
                while (rs.next()) {
                    plan.append(rs.getString(1)).append('\n');
                }
                return plan.toString();
            } finally {
                statement.execute("DEALLOCATE explained");
                statement.execute("RESET plan_cache_mode");
            }
        }
    }

    /** JDBC's '?' as $1, $2, ... for PREPARE (the hot-path statements have no '?' inside literals). */
    private static String numberedParameters(String sql) {
        StringBuilder numbered = new StringBuilder();
        int n = 0;
        for (char c : sql.toCharArray()) {
            if (c == '?') {
                numbered.append('$').append(++n);
            } else {
                numbered.append(c);
            }
        }
        return numbered.toString();
    }
}
