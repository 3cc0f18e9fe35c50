package dev.outboxjava.relayapp.internal;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import java.time.Duration;
import java.util.Objects;

/**
 * Closes the process's connection pool without waiting on a database that does not answer: HikariCP's close
 * waits for a connection attempt under way (up to the connect timeout), which during an outage has nothing
 * to give back. The close runs on a thread of its own and this returns once the pool holds no connection
 * any more (each one it had is closed, so the server releases its session), or when the close is done.
 */
final class PoolShutdown implements AutoCloseable {

    /** How often to look whether the pool's connections are all closed. */
    private static final Duration CHECK_INTERVAL = Duration.ofMillis(20);

    private final HikariDataSource pool;

    PoolShutdown(HikariDataSource pool) {
        this.pool = Objects.requireNonNull(pool, "pool");
    }

    @Override
    public void close() throws InterruptedException {
        HikariPoolMXBean connections = pool.getHikariPoolMXBean();
        Thread closer = new Thread(pool::close, "outbox-pool-close");
        closer.setDaemon(true); // a connection attempt it still waits for must not keep the JVM alive
        closer.start();
        // the caller bounds the whole close; this ends it early once nothing is left to release
        while (closer.isAlive() && (connections == null || connections.getTotalConnections() > 0)) {
            closer.join(CHECK_INTERVAL.toMillis());
        }
    }
}
