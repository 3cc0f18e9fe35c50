/**
 * The append-only layout, the default ({@code StoreLayout.APPEND_LOG}): events are appended to a
 * partitioned log that is never updated; what changes (leases, state rows, sent records, the read
 * position) lives in small tables beside it, emptied by truncating generations or dropping partitions, so
 * a transaction that holds back vacuum leaves no dead entries where the lease reads. One class per
 * statement family: {@link dev.outboxjava.postgres.internal.appendlog.LogLease} (and its log read
 * {@link dev.outboxjava.postgres.internal.appendlog.LogReadSql}), {@link
 * dev.outboxjava.postgres.internal.appendlog.LogMarks}, {@link
 * dev.outboxjava.postgres.internal.appendlog.LogHousekeeping} (retention by {@link
 * dev.outboxjava.postgres.internal.appendlog.LogPartitions}), {@link
 * dev.outboxjava.postgres.internal.appendlog.LogOperatorReads}, {@link
 * dev.outboxjava.postgres.internal.appendlog.LogRepairs}; {@link
 * dev.outboxjava.postgres.internal.appendlog.AppendLogLayout} puts them together. Not API.
 */
package dev.outboxjava.postgres.internal.appendlog;
