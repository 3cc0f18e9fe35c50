package dev.outboxjava.postgres.inbox;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.name;

import dev.outboxjava.postgres.internal.Identifiers;
import java.time.Instant;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/** jOOQ's view of one inbox table (the name is configurable, so an instance, not generated code). */
final class InboxTable {

    static final Field<String> CONSUMER_NAME = field(name("consumer_name"), SQLDataType.CLOB);
    static final Field<String> MESSAGE_ID = field(name("message_id"), SQLDataType.CLOB);
    static final Field<Instant> PROCESSED_AT = field(name("processed_at"), SQLDataType.INSTANT);

    private final Identifiers.TableName tableName;
    private final Table<Record> table;

    InboxTable(Identifiers.TableName name) {
        this.tableName = name;
        this.table = DSL.table(
                name.schema().map(schema -> DSL.name(schema, name.table())).orElse(DSL.name(name.table())));
    }

    Table<Record> table() {
        return table;
    }

    Identifiers.TableName tableName() {
        return tableName;
    }
}
