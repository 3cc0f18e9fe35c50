/**
 * The fault-injection suite, on the testkit's harness ({@code dev.outboxjava.it.faults}).
 *
 * <ul>
 *   <li>{@link dev.outboxjava.it.faults.suite.FaultInjectionIT}: per broker, relay processes drain a table
 *       that producers fill continuously with transactions that lock one to three aggregates in key order
 *       and append an event for each (10 % of them rolled back) while every kind of fault is injected at
 *       random moments; ends with one line
 *       {@code events N, faults F, lost 0, phantom 0, reordered 0 (of E events, K keys, …), duplicates D, stuck 0}.
 *       Default (CI): 1,500+ events and 6 faults per broker, both per-key; Kafka on the append-only layout with
 *       relays assembled from the library, RabbitMQ in place on the worker
 *       ({@code -Doutbox.faults.ordering=per_key|none}, {@code -Doutbox.faults.layout=append_log|in_place} set
 *       both brokers).
 *       Long run: {@code mvn -B -pl outbox-it -am verify -Pfaults-long -Dit.test=FaultInjectionIT -Dtest=none
 *       -Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.failIfNoSpecifiedTests=false
 *       [-Doutbox.faults.ordering=per_key|none] [-Doutbox.faults.layout=append_log|in_place]
 *       [-Doutbox.faults.seed=...]}: 100,000+ events and 60 faults per
 *       broker.</li>
 *   <li>{@link dev.outboxjava.it.faults.suite.BadInputIT}: bad input refused before commit, nothing else lost.</li>
 *   <li>{@link dev.outboxjava.it.faults.suite.DeliveryCheckerTest}: the checker's own rules.</li>
 * </ul>
 *
 * Each relay process writes its output to {@code examples/target/fault-logs/<broker>/} (or
 * {@code -Doutbox.faults.logs=<dir>}).
 */
package dev.outboxjava.it.faults.suite;
