/**
 * The in-place layout ({@code StoreLayout.IN_PLACE}): one row per event in the outbox table, updated as
 * it is leased and marked. {@link dev.outboxjava.postgres.internal.inplace.InPlaceLayout} puts together
 * its lease ({@link dev.outboxjava.postgres.internal.inplace.LeaseQuery}, or {@link
 * dev.outboxjava.postgres.internal.inplace.OrderedLeaseQuery} under per-key ordering), the shared marks
 * and housekeeping, its operator reads and repairs. Not API.
 */
package dev.outboxjava.postgres.internal.inplace;
