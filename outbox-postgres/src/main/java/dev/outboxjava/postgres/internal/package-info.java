/**
 * The store's internals that both layouts use: table and column names ({@link
 * dev.outboxjava.postgres.internal.Identifiers}, {@link dev.outboxjava.postgres.internal.OutboxTable}),
 * JDBC and rendering helpers, the DDL and migration scripts, event rows and the append statement, the
 * marks, sweep and backlog over a table of state rows, the operator's repairs and audit trail, the failed
 * attempts. {@link dev.outboxjava.postgres.internal.Layout} says what a layout does; its two
 * implementations are in {@code appendlog} (the default) and {@code inplace}, which this package never
 * uses. Not API: it may change in any release.
 */
package dev.outboxjava.postgres.internal;
