package dev.outboxjava.postgres.internal;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.name;

import dev.outboxjava.core.port.WorkerHeartbeat;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Name;
import org.jooq.Record;
import org.jooq.Record13;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * The heartbeats of an outbox table's workers, in the table {@code <table>_workers} of the operator's
 * migrations: one row per running worker, upserted at each beat, deleted when it stops cleanly or has been
 * gone long enough. Each statement touches one row, or the few rows of long-gone workers.
 */
public final class WorkerHeartbeatTable {

    private static final Field<UUID> WORKER_ID = field(name("worker_id"), SQLDataType.UUID);
    private static final Field<String> PROCESS = field(name("process"), SQLDataType.CLOB);
    private static final Field<String> HOST = field(name("host"), SQLDataType.CLOB);
    private static final Field<String> VERSION = field(name("version"), SQLDataType.CLOB);
    private static final Field<Integer> RELAY_THREADS = field(name("relay_threads"), SQLDataType.INTEGER);
    private static final Field<String> ORDERING = field(name("ordering"), SQLDataType.CLOB);
    private static final Field<String> LAYOUT = field(name("layout"), SQLDataType.CLOB);
    private static final Field<Instant> STARTED_AT = field(name("started_at"), SQLDataType.INSTANT);
    private static final Field<Instant> BEAT_AT = field(name("beat_at"), SQLDataType.INSTANT);
    private static final Field<Long> BEAT_INTERVAL_MS = field(name("beat_interval_ms"), SQLDataType.BIGINT);
    private static final Field<Instant> LAST_LEASE_AT = field(name("last_lease_at"), SQLDataType.INSTANT);
    private static final Field<Instant> LAST_ERROR_AT = field(name("last_error_at"), SQLDataType.INSTANT);
    private static final Field<String> LAST_ERROR = field(name("last_error"), SQLDataType.CLOB);

    private final Name tableName;
    private final Table<Record> workers;

    public WorkerHeartbeatTable(Identifiers.TableName table) {
        this.tableName = table.schema()
                .map(schema -> DSL.name(schema, table.table() + MigrationFiles.WORKERS_SUFFIX))
                .orElse(DSL.name(table.table() + MigrationFiles.WORKERS_SUFFIX));
        this.workers = DSL.table(tableName);
    }

    /** The table's name as shown in messages ({@code schema.table_workers}). */
    public String displayName() {
        return String.join(".", tableName.getName());
    }

    /** Whether the table exists. */
    public boolean exists(DSLContext dsl) {
        Field<Boolean> present =
                DSL.field("to_regclass({0}) IS NOT NULL", SQLDataType.BOOLEAN, DSL.val(tableName.toString()));
        return Boolean.TRUE.equals(dsl.select(present).fetchOne(present));
    }

    /** Inserts the heartbeat, or replaces the one of its worker. */
    public void upsert(DSLContext dsl, WorkerHeartbeat beat) {
        Instant errorAt = beat.lastError().map(WorkerHeartbeat.Failure::at).orElse(null);
        String error = beat.lastError().map(WorkerHeartbeat.Failure::detail).orElse(null);
        Instant leaseAt = beat.lastLeaseAt().orElse(null);
        dsl.insertInto(workers)
                .set(WORKER_ID, beat.workerId())
                .set(PROCESS, beat.process())
                .set(HOST, beat.host())
                .set(VERSION, beat.version())
                .set(RELAY_THREADS, beat.relayThreads())
                .set(ORDERING, beat.ordering())
                .set(LAYOUT, beat.layout())
                .set(STARTED_AT, beat.startedAt())
                .set(BEAT_AT, beat.beatAt())
                .set(BEAT_INTERVAL_MS, beat.beatInterval().toMillis())
                .set(LAST_LEASE_AT, leaseAt)
                .set(LAST_ERROR_AT, errorAt)
                .set(LAST_ERROR, error)
                .onConflict(WORKER_ID)
                .doUpdate()
                .set(BEAT_AT, beat.beatAt())
                .set(LAST_LEASE_AT, leaseAt)
                .set(LAST_ERROR_AT, errorAt)
                .set(LAST_ERROR, error)
                .execute();
    }

    /** Deletes the heartbeat of one worker. */
    public void delete(DSLContext dsl, UUID workerId) {
        dsl.deleteFrom(workers).where(WORKER_ID.eq(workerId)).execute();
    }

    /** Deletes the heartbeats last beaten before {@code before}. */
    public int deleteBeatenBefore(DSLContext dsl, Instant before) {
        return dsl.deleteFrom(workers).where(BEAT_AT.lt(before)).execute();
    }

    /** The heartbeats, oldest start first, at most {@code limit}. */
    public List<WorkerHeartbeat> list(DSLContext dsl, int limit) {
        return dsl.select(
                        WORKER_ID,
                        PROCESS,
                        HOST,
                        VERSION,
                        RELAY_THREADS,
                        ORDERING,
                        LAYOUT,
                        STARTED_AT,
                        BEAT_AT,
                        BEAT_INTERVAL_MS,
                        LAST_LEASE_AT,
                        LAST_ERROR_AT,
                        LAST_ERROR)
                .from(workers)
                .orderBy(STARTED_AT, WORKER_ID)
                .limit(limit)
                .fetch(WorkerHeartbeatTable::heartbeat);
    }

    private static WorkerHeartbeat heartbeat(
            Record13<
                            UUID,
                            String,
                            String,
                            String,
                            Integer,
                            String,
                            String,
                            Instant,
                            Instant,
                            Long,
                            Instant,
                            Instant,
                            String>
                    row) {
        Optional<WorkerHeartbeat.Failure> error = row.value12() == null || row.value13() == null
                ? Optional.empty()
                : Optional.of(new WorkerHeartbeat.Failure(row.value12(), row.value13()));
        return new WorkerHeartbeat(
                row.value1(),
                row.value2(),
                row.value3(),
                row.value4(),
                row.value5(),
                row.value6(),
                row.value7(),
                row.value8(),
                row.value9(),
                Duration.ofMillis(Math.max(1, row.value10())),
                Optional.ofNullable(row.value11()),
                error);
    }
}
