/** Optional OpenTelemetry trace propagation of the writer: the current span's W3C context stored as event headers. */
package dev.outboxjava.postgres.tracing;
