package dev.outboxjava.postgres.internal;

import dev.outboxjava.core.port.WorkerHeartbeat;
import dev.outboxjava.core.port.WorkerHeartbeats;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import org.jooq.DSLContext;

/** The workers' heartbeats of one outbox table, each statement run (and its failure named) by the store's calls. */
public final class HeartbeatCalls implements WorkerHeartbeats {

    private final StoreCalls calls;
    private final DSLContext dsl;
    private final WorkerHeartbeatTable table;
    private final String outboxTable;
    private final String migrations;

    /**
     * @param outboxTable the outbox table
     * @param migrations  where the operator's migrations are
     */
    public HeartbeatCalls(StoreCalls calls, DSLContext dsl, Identifiers.TableName outboxTable, String migrations) {
        this.calls = calls;
        this.dsl = dsl;
        this.table = new WorkerHeartbeatTable(outboxTable);
        this.outboxTable = outboxTable.display();
        this.migrations = migrations;
    }

    /** The heartbeats, those that stopped beating included, at most {@code limit}. */
    public List<WorkerHeartbeat> workers(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1, was " + limit);
        }
        return calls.run("list the workers' heartbeats in " + table.displayName(), () -> table.list(dsl, limit));
    }

    /**
     * Empty when the heartbeat table {@code <table>_workers} exists; otherwise says that it does not and what
     * creates it (the operator's migrations).
     */
    @Override
    public Optional<String> unavailable() {
        boolean exists = calls.run("look for " + table.displayName(), () -> table.exists(dsl));
        return exists
                ? Optional.empty()
                : Optional.of("the table " + table.displayName() + " does not exist: create it with the operator's"
                        + " migrations (" + migrations
                        + ", V4__create_workers_table.sql), store.ensureSchema(), or 'outbox-worker schema --table "
                        + outboxTable + " --apply'");
    }

    @Override
    public void beat(WorkerHeartbeat heartbeat) {
        Objects.requireNonNull(heartbeat, "heartbeat");
        calls.run("record the heartbeat in " + table.displayName(), () -> {
            table.upsert(dsl, heartbeat);
            return null;
        });
    }

    @Override
    public void remove(UUID workerId) {
        Objects.requireNonNull(workerId, "workerId");
        calls.run("remove the heartbeat of worker " + workerId + " from " + table.displayName(), () -> {
            table.delete(dsl, workerId);
            return null;
        });
    }

    @Override
    public int forgetBeatenBefore(Instant beatBefore) {
        Objects.requireNonNull(beatBefore, "beatBefore");
        return calls.run(
                "delete the heartbeats of long-gone workers from " + table.displayName(),
                () -> table.deleteBeatenBefore(dsl, beatBefore));
    }
}
