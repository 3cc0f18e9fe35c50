package dev.outboxjava.benchmarks.internal;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;

/**
 * The database alone, without the library's Java code: plain JDBC running SQL of the same shape as
 * the store's — the lease ({@code UPDATE … WHERE id IN (SELECT … ORDER BY seq LIMIT ? FOR UPDATE SKIP
 * LOCKED) RETURNING *}, every column read, committed asynchronously as the store's) and one fenced
 * mark per batch ({@code UPDATE … SET status='sent'} or {@code DELETE}, {@code WHERE id = ANY(?) AND
 * lease_id = ? AND status || '' = 'in_flight' RETURNING id}: by primary key, as the store's) — with
 * typed parameters (a real {@code uuid[]}), one connection per drainer, auto-commit.
 */
public final class SqlDrainers {

    private SqlDrainers() {}

    /** @return rows marked per second until the backlog is empty or {@code window} has passed */
    public static double drain(
            DataSource pool,
            String table,
            boolean delete,
            int batchSize,
            int drainers,
            long expected,
            Duration window) {
        String lease = "UPDATE " + table + " SET status = 'in_flight', lease_id = ?, leased_at = ? "
                + "FROM (SELECT set_config('synchronous_commit', 'off', true)) AS async_commit WHERE id IN "
                + "(SELECT id FROM " + table + " WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY seq "
                + "LIMIT ? FOR UPDATE SKIP LOCKED) RETURNING " + table + ".*";
        String mark = delete
                ? "DELETE FROM " + table + " WHERE id = ANY(?) AND lease_id = ? AND status || '' = 'in_flight' "
                        + "RETURNING id"
                : "UPDATE " + table + " SET status = 'sent', sent_at = ? WHERE id = ANY(?) AND lease_id = ? "
                        + "AND status || '' = 'in_flight' RETURNING id";
        AtomicLong marked = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long deadline = System.nanoTime() + window.toNanos();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < drainers; i++) {
            threads.add(new Thread(
                    () -> {
                        try (Connection connection = pool.getConnection();
                                PreparedStatement leaseStatement = connection.prepareStatement(lease);
                                PreparedStatement markStatement = connection.prepareStatement(mark)) {
                            while (System.nanoTime() < deadline) {
                                UUID leaseId = UUID.randomUUID();
                                Timestamp now = Timestamp.from(Instant.now());
                                leaseStatement.setObject(1, leaseId);
                                leaseStatement.setTimestamp(2, now);
                                leaseStatement.setTimestamp(3, now);
                                leaseStatement.setInt(4, batchSize);
                                List<UUID> ids = new ArrayList<>(batchSize);
                                try (ResultSet rs = leaseStatement.executeQuery()) {
                                    ResultSetMetaData meta = rs.getMetaData();
                                    while (rs.next()) {
                                        for (int c = 1; c <= meta.getColumnCount(); c++) {
                                            rs.getObject(c);
                                        }
                                        ids.add(rs.getObject("id", UUID.class));
                                    }
                                }
                                if (ids.isEmpty()) {
                                    return;
                                }
                                Array array = connection.createArrayOf("uuid", ids.toArray());
                                int p = 1;
                                if (!delete) {
                                    markStatement.setTimestamp(p++, Timestamp.from(Instant.now()));
                                }
                                markStatement.setArray(p++, array);
                                markStatement.setObject(p, leaseId);
                                try (ResultSet rs = markStatement.executeQuery()) {
                                    long n = 0;
                                    while (rs.next()) {
                                        n++;
                                    }
                                    marked.addAndGet(n);
                                }
                            }
                        } catch (Throwable e) {
                            failure.compareAndSet(null, e);
                        }
                    },
                    "bench-sql-drainer-" + i));
        }
        long start = System.nanoTime();
        threads.forEach(Thread::start);
        for (Thread thread : threads) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while draining", e);
            }
        }
        if (failure.get() != null) {
            throw new IllegalStateException("a drainer failed: " + failure.get(), failure.get());
        }
        if (marked.get() != expected && System.nanoTime() < deadline) {
            throw new IllegalStateException("drained " + marked.get() + " rows, expected " + expected);
        }
        return marked.get() / ((System.nanoTime() - start) / 1e9);
    }
}
