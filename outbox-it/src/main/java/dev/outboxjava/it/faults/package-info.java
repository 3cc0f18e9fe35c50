/**
 * A fault-injection harness: run the relay under crashes, outages, restarts, hung publishers and
 * skewed clocks while producers write (and roll back) continuously, then check that nothing was lost,
 * nothing phantom was delivered, per-key order held and every duplicate is explained.
 *
 * <ul>
 *   <li>{@link dev.outboxjava.it.faults.ContinuousProducer} writes transactions that lock one or more
 *       aggregates' rows in key order and append an event for each, recording every outcome and each event's
 *       version (its write order within its key) in a {@link dev.outboxjava.it.faults.ProducerLedger};</li>
 *   <li>relays run as OS processes ({@link dev.outboxjava.it.faults.RelayProcess}, the worker by
 *       default) in a {@link dev.outboxjava.it.faults.RelayFleet}, or in this JVM
 *       ({@link dev.outboxjava.it.faults.InJvmRelay}) for the faults that need a hook;</li>
 *   <li>{@link dev.outboxjava.it.faults.HaltAfterAck} makes a relay process halt between the broker's
 *       acknowledgement and the mark (install it in your relay's main method), and
 *       {@link dev.outboxjava.it.faults.ClockSkewCheck} measures a relay's clock against the database's
 *       (the library needs skew well below {@code leaseTimeout − publishTimeout});</li>
 *   <li>{@link dev.outboxjava.it.faults.FaultInjectors} builds the faults, and
 *       {@link dev.outboxjava.it.faults.FaultCampaign} injects them at random moments;</li>
 *   <li>{@link dev.outboxjava.it.faults.ExposureLog} records which events were in flight while a
 *       fault struck, and {@link dev.outboxjava.it.faults.DeliveryChecker} produces the
 *       {@link dev.outboxjava.it.faults.FaultReport} and its summary line
 *       {@code events N, faults F, lost 0, phantom 0, reordered 0 (of E events, K keys, …), duplicates D, stuck 0}.</li>
 * </ul>
 *
 * <p>Duplicates are allowed (at least once) but each must be explained: the event was in flight while a
 * relay crashed, its mark came back lease-lost, or a publish of it failed and was retried. Per-key order is
 * judged on each key's first deliveries (what a consumer that drops duplicates by id sees), against the key's
 * write order: the version each writer read under the key's row lock.
 *
 * <p>Shared servers: the harness never restarts PostgreSQL or RabbitMQ; it terminates only the relays' own
 * database sessions ({@link dev.outboxjava.it.faults.PostgresSessionTerminator}) and closes only the
 * relays' own broker connections ({@link dev.outboxjava.it.faults.RabbitMqConnectionCloser}). Kafka
 * outages stop and restart the in-process broker of the testkit.
 */
package dev.outboxjava.it.faults;
