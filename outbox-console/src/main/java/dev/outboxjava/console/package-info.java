/**
 * The operator's web console: {@link dev.outboxjava.console.OutboxConsole} (build it over a store that
 * offers the operator API, then mount it in a Javalin application or start it on its own server), the
 * {@link dev.outboxjava.console.ActivitySampler} behind the overview's charts, and the
 * {@link dev.outboxjava.console.HealthSignal}s it shows. Everything in {@code internal} may change.
 */
package dev.outboxjava.console;
