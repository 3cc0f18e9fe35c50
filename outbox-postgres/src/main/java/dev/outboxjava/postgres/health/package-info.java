/**
 * Database health signals of a PostgreSQL outbox: table statistics (dead tuples, last vacuum, size)
 * and what holds back the xmin horizon (the oldest open transaction and its session, prepared
 * transactions, replication slots). Read by the worker's metrics,
 * readiness check and {@code status} command.
 */
package dev.outboxjava.postgres.health;
