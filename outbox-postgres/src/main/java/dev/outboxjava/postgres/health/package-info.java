/**
 * Database health signals of a PostgreSQL outbox: table statistics (dead tuples, last vacuum, size)
 * and the oldest open transaction holding back the xmin horizon. Read by the worker's metrics,
 * readiness check and {@code status} command.
 */
package dev.outboxjava.postgres.health;
