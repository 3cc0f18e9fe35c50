package dev.outboxjava.postgres.internal;

import java.sql.Array;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.Collection;
import java.util.UUID;

/**
 * Typed bind values and reads for the hot-path statements, which run on plain JDBC.
 *
 * <p>Why typed: a value bound as text and cast in SQL ({@code cast(? as uuid[])}) is not folded by
 * PostgreSQL — {@code array_in} is only stable — so in {@code WHERE id = ANY(cast(? as uuid[]))} the
 * whole text was parsed again for every row examined (a 500-id mark took ~200 ms instead of ~15 ms).
 * A parameter sent with its type ({@code uuid[]}, {@code timestamptz}) is parsed once.
 */
public final class Jdbc {

    private Jdbc() {}

    /** An instant as pgjdbc binds it with its type ({@code timestamptz}), never as text to cast. */
    public static OffsetDateTime timestamptz(Instant instant) {
        return instant.atOffset(ZoneOffset.UTC);
    }

    /** A {@code timestamptz} column; {@code null} for SQL NULL. */
    public static Instant instant(ResultSet rs, int column) throws SQLException {
        OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.toInstant();
    }

    /** A {@code uuid} column; {@code null} for SQL NULL. */
    public static UUID uuid(ResultSet rs, int column) throws SQLException {
        return rs.getObject(column, UUID.class);
    }

    /** The ids as ONE typed {@code uuid[]} parameter. */
    public static Array uuidArray(Connection connection, Collection<UUID> ids) throws SQLException {
        return connection.createArrayOf("uuid", ids.toArray(new UUID[0]));
    }

    /** Strings as one typed {@code text[]} parameter (elements may be null). */
    public static Array textArray(Connection connection, String[] values) throws SQLException {
        return connection.createArrayOf("text", values);
    }

    /**
     * Instants as one typed {@code timestamptz[]} parameter. The elements travel as ISO text, so they
     * are rounded to microseconds here, half up, exactly as pgjdbc rounds a single bound instant
     * (PostgreSQL's own rounding of a longer fraction can differ in the last digit).
     */
    public static Array timestamptzArray(Connection connection, Instant[] values) throws SQLException {
        String[] text = new String[values.length];
        for (int i = 0; i < values.length; i++) {
            text[i] = values[i].plusNanos(500).truncatedTo(ChronoUnit.MICROS).toString();
        }
        return connection.createArrayOf("timestamptz", text);
    }
}
