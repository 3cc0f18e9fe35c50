package dev.outboxjava.postgres.internal;

import org.jooq.DSLContext;
import org.jooq.DataType;
import org.jooq.Field;
import org.jooq.QueryPart;
import org.jooq.SQLDialect;
import org.jooq.conf.ParamType;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;

/**
 * Renders a statement built with jOOQ's DSL, once, to PostgreSQL text with {@code ?} placeholders,
 * for the statements that run through pgjdbc's {@link java.sql.PreparedStatement} directly.
 *
 * <p>Why not execute them through jOOQ: the relay leases and marks a batch many times a second and a
 * producer appends inside each of its transactions. jOOQ would render the text again on every call and
 * read rows into records; rendered once, the text is a constant the driver finds in its per-connection
 * statement cache (and server-prepares after {@code prepareThreshold} executions), values are bound with
 * their types and rows are read by position, so a call costs what a hand-written statement costs.
 *
 * <p>A statement's placeholders are the {@link #bind(DataType)} values in the order jOOQ renders them;
 * literals that must be in the text (statuses, for the partial indexes) are {@link DSL#inline inlined}.
 */
public final class PreparedSql {

    static {
        JooqBanner.silence();
    }

    private static final DSLContext POSTGRES = DSL.using(
            SQLDialect.POSTGRES,
            new Settings()
                    .withParamType(ParamType.INDEXED)
                    .withRenderFormatted(false)
                    .withExecuteLogging(false));

    private PreparedSql() {}

    /** The statement's (or expression's) text, every bind value a {@code ?}, never a named parameter. */
    public static String render(QueryPart query) {
        return POSTGRES.render(query);
    }

    /** A placeholder of {@code type}: the statement's caller binds its value by position. */
    public static <T> Field<T> bind(DataType<T> type) {
        return DSL.val(null, type);
    }
}
