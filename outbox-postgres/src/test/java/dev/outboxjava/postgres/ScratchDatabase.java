package dev.outboxjava.postgres;

import dev.outboxjava.postgres.internal.Identifiers;
import dev.outboxjava.testkit.postgres.PostgresFixture;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * An empty database of the test's own on the shared server, dropped on close, for what needs a whole
 * database (migration tools and their history tables), and a way to compare tables by their catalog.
 */
final class ScratchDatabase implements AutoCloseable {

    private static final Pattern URL = Pattern.compile("(jdbc:postgresql://[^/]+/)([^?]*)(.*)");

    private final PostgresFixture postgres;
    private final String name;
    private final PGSimpleDataSource dataSource = new PGSimpleDataSource();

    ScratchDatabase(String prefix) {
        postgres = PostgresFixture.shared();
        name = prefix + "_"
                + UUID.randomUUID().toString().replace("-", "").substring(0, 10).toLowerCase(Locale.ROOT);
        Matcher matcher = URL.matcher(postgres.jdbcUrl());
        if (!matcher.matches()) {
            throw new IllegalStateException("unexpected JDBC URL " + postgres.jdbcUrl());
        }
        postgres.execute("CREATE DATABASE " + name);
        dataSource.setUrl(matcher.group(1) + name + matcher.group(3));
        dataSource.setUser(postgres.user());
        dataSource.setPassword(postgres.password());
    }

    PGSimpleDataSource dataSource() {
        return dataSource;
    }

    /** The table as the catalog sees it, one line per fact, the schema's name left out. */
    List<String> describe(String schema, String table) throws SQLException {
        String relation = Identifiers.quote(schema) + "." + Identifiers.quote(table);
        List<String> lines = new ArrayList<>();
        try (Connection connection = dataSource.getConnection()) {
            query(connection, """
                    SELECT 'column ' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
                           || CASE WHEN a.attnotnull THEN ' not null' ELSE '' END
                           || CASE WHEN a.attidentity::text <> '' THEN ' identity ' || a.attidentity::text ELSE '' END
                           || coalesce(' default ' || pg_get_expr(d.adbin, d.adrelid), '')
                    FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
                    WHERE a.attrelid = to_regclass(?) AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum""", relation, lines);
            query(connection, """
                    SELECT 'constraint ' || conname || ' ' || pg_get_constraintdef(oid)
                    FROM pg_constraint WHERE conrelid = to_regclass(?) ORDER BY conname""", relation, lines);
            query(connection, """
                    SELECT 'index ' || i.relname || ' ' || pg_get_indexdef(x.indexrelid)
                    FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
                    WHERE x.indrelid = to_regclass(?) ORDER BY i.relname""", relation, lines);
            query(connection, """
                    SELECT 'options ' || coalesce(array_to_string(reloptions, ','), '')
                    FROM pg_class WHERE oid = to_regclass(?)""", relation, lines);
            query(connection, """
                    SELECT 'trigger ' || tgname FROM pg_trigger
                    WHERE tgrelid = to_regclass(?) AND NOT tgisinternal ORDER BY tgname""", relation, lines);
        }
        if (lines.isEmpty()) {
            throw new AssertionError("no table " + relation + " in database " + name);
        }
        return lines.stream().map(line -> line.replace(schema + ".", "")).toList();
    }

    private static void query(Connection connection, String sql, String relation, List<String> lines)
            throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setString(1, relation);
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    lines.add(rows.getString(1));
                }
            }
        }
    }

    @Override
    public void close() {
        postgres.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
    }
}
