// Fixture for ArchitectureTest: deliberately breaks "only the Spring Boot modules and their examples use Spring".
package dev.outboxjava.postgres.archviolation;

import org.springframework.transaction.support.TransactionSynchronizationManager;

/** A PostgreSQL-adapter class that asks Spring whether a transaction is active. */
public final class PostgresUsingSpring {

    private PostgresUsingSpring() {}

    public static boolean inTransaction() {
        return TransactionSynchronizationManager.isActualTransactionActive();
    }
}
