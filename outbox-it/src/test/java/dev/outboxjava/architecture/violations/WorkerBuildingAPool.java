// Fixture for ArchitectureTest: deliberately breaks "the embeddable worker leaves the pool to the application".
package dev.outboxjava.worker.archviolation;

import com.zaxxer.hikari.HikariDataSource;

/** A worker class that builds a connection pool of its own. */
public final class WorkerBuildingAPool {

    public HikariDataSource pool(String url) {
        HikariDataSource pool = new HikariDataSource();
        pool.setJdbcUrl(url);
        return pool;
    }
}
