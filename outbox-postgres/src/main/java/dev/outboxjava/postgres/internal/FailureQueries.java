package dev.outboxjava.postgres.internal;

import static dev.outboxjava.postgres.internal.OutboxTable.ATTEMPTS;
import static dev.outboxjava.postgres.internal.OutboxTable.CREATED_AT;
import static dev.outboxjava.postgres.internal.OutboxTable.DESTINATION;
import static dev.outboxjava.postgres.internal.OutboxTable.EVENT_KEY;
import static dev.outboxjava.postgres.internal.OutboxTable.ID;
import static dev.outboxjava.postgres.internal.OutboxTable.LAST_ERROR;
import static dev.outboxjava.postgres.internal.OutboxTable.STATUS;
import static dev.outboxjava.postgres.internal.OutboxTable.TYPE;
import static dev.outboxjava.postgres.internal.OutboxTable.column;
import static dev.outboxjava.postgres.internal.OutboxTable.statusLiteral;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.port.DeadLetterFilter;
import dev.outboxjava.core.port.ErrorCause;
import dev.outboxjava.core.port.FailureGroup;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * The operator's answers to "why" over the state columns of either layout ({@code st}): the failed
 * events grouped by cause ({@link ErrorCause}, computed in SQL by the same rule), the values of a
 * dead-letter filter's fields, and when events were dead-lettered.
 *
 * <p>A group's first and last seen are the earliest and latest failed attempts recorded for its events
 * ({@code <table>_attempts}); an event without recorded attempts (failed before that table existed, or
 * while its migration had not run) counts with its creation time instead, so that every group has both.
 */
public final class FailureQueries {

    private final Table<Record> stateTable;
    private final Table<Record> st;
    private final AttemptHistory attempts;

    FailureQueries(Table<Record> stateTable, Table<Record> st, AttemptHistory attempts) {
        this.stateTable = stateTable;
        this.st = st;
        this.attempts = attempts;
    }

    /**
     * {@link ErrorCause#of} in SQL: the first line, UUIDs as {@code *}, digit runs as {@code #}, at most
     * {@link ErrorCause#MAX_LENGTH} characters (the constants inline, so that the expression is one text in
     * a select list and its GROUP BY).
     */
    public static Field<String> cause(Field<String> error) {
        Field<String> firstLine = DSL.splitPart(error, DSL.inline("\n"), DSL.inline(1));
        Field<String> noUuids = DSL.regexpReplaceAll(firstLine, DSL.inline(ErrorCause.UUID_PATTERN), DSL.inline("*"));
        Field<String> noDigits = DSL.regexpReplaceAll(noUuids, DSL.inline(ErrorCause.DIGITS_PATTERN), DSL.inline("#"));
        return DSL.left(noDigits, DSL.inline(ErrorCause.MAX_LENGTH));
    }

    /** {@code value} matches {@code wanted} as {@code match} says (contains: same case, anywhere). */
    public static Condition matching(Field<String> value, String wanted, DeadLetterFilter.TextMatch match) {
        return match == DeadLetterFilter.TextMatch.EXACT
                ? value.eq(wanted)
                : DSL.function("strpos", SQLDataType.INTEGER, value, DSL.val(wanted))
                        .gt(0);
    }

    private Field<String> st(Field<String> field) {
        return column(st, field);
    }

    public List<FailureGroup> failureGroups(DSLContext dsl, int limit) {
        Field<String> error = DSL.coalesce(st(LAST_ERROR), DSL.inline(""));
        Field<Instant> created = column(st, CREATED_AT);
        Field<UUID> id = column(st, ID);
        Condition dead = column(st, STATUS).eq(statusLiteral(EventStatus.FAILED));
        Condition retrying = column(st, STATUS)
                .eq(statusLiteral(EventStatus.PENDING))
                .and(column(st, ATTEMPTS).gt(DSL.inline(0)));
        Table<?> f = DSL.select(
                        DSL.field(dead).as("dead"),
                        cause(error).as("cause"),
                        error.as("error"),
                        st(DESTINATION).as("destination"),
                        st(TYPE).as("type"),
                        DSL.coalesce(attempts.firstAt(id), created).as("first_seen"),
                        DSL.coalesce(attempts.lastAt(id), created).as("last_seen"))
                .from(st)
                .where(dead.or(retrying))
                .asTable("f");
        Field<Boolean> fDead = DSL.field(DSL.name("f", "dead"), SQLDataType.BOOLEAN);
        Field<String> fCause = DSL.field(DSL.name("f", "cause"), SQLDataType.CLOB);
        Field<String> fError = DSL.field(DSL.name("f", "error"), SQLDataType.CLOB);
        Field<String> fDestination = DSL.field(DSL.name("f", "destination"), SQLDataType.CLOB);
        Field<String> fType = DSL.field(DSL.name("f", "type"), SQLDataType.CLOB);
        Field<Instant> fFirst = DSL.field(DSL.name("f", "first_seen"), SQLDataType.INSTANT);
        Field<Instant> fLast = DSL.field(DSL.name("f", "last_seen"), SQLDataType.INSTANT);
        Field<Long> count = DSL.count().coerce(SQLDataType.BIGINT);
        return dsl.select(fDead, fCause, DSL.min(fError), fDestination, fType, count, DSL.min(fFirst), DSL.max(fLast))
                .from(f)
                .groupBy(fDead, fCause, fDestination, fType)
                .orderBy(fDead.desc(), DSL.count().desc(), fCause, fDestination, fType)
                .limit(limit)
                .fetch(row -> new FailureGroup(
                        row.value1() ? FailureGroup.Kind.DEAD_LETTER : FailureGroup.Kind.RETRYING,
                        row.value2(),
                        row.value3(),
                        row.value4(),
                        row.value5(),
                        row.value6(),
                        row.value7(),
                        row.value8()));
    }

    /**
     * The distinct values of a field among the dead letters, in the order of their characters' code points
     * (collation {@code "C"}, as Java compares strings), not the database's language rules.
     */
    public List<String> deadLetterValues(DSLContext dsl, DeadLetterFilter.Field field, String containing, int limit) {
        Field<String> value = switch (field) {
            case DESTINATION -> st(DESTINATION);
            case TYPE -> st(TYPE);
            case KEY -> st(EVENT_KEY);
        };
        return dsl.select(value)
                .from(st)
                .where(column(st, STATUS).eq(statusLiteral(EventStatus.FAILED)))
                .and(value.isNotNull())
                .and(
                        containing.isEmpty()
                                ? DSL.noCondition()
                                : matching(value, containing, DeadLetterFilter.TextMatch.CONTAINS))
                .groupBy(value)
                .orderBy(value.collate("C"))
                .limit(limit)
                .fetch(value);
    }

    public Map<UUID, Instant> deadLetteredAt(DSLContext dsl, Set<UUID> eventIds) {
        if (eventIds.isEmpty()) {
            return Map.of();
        }
        Table<Record> d = stateTable.as("d");
        return attempts.deadLetteredAt(
                dsl,
                eventIds,
                eventId -> DSL.exists(DSL.selectOne()
                        .from(d)
                        .where(column(d, ID).eq(eventId))
                        .and(column(d, STATUS).eq(statusLiteral(EventStatus.FAILED)))));
    }
}
