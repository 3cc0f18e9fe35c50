/**
 * Test support for code that uses Outbox for Java: fakes, assertions and JUnit 5 extensions.
 *
 * <ul>
 *   <li>{@link dev.outboxjava.testkit.RecordingPublisher} — a publisher that records what it was given;
 *       {@link dev.outboxjava.testkit.FaultyPublisher} — scripted broker faults around any publisher.</li>
 *   <li>{@link dev.outboxjava.testkit.OutboxAssertions} with {@link dev.outboxjava.testkit.EventFilter} —
 *       "was published", "nothing was published", "the outbox is drained", with failures that list what
 *       was there; {@link dev.outboxjava.testkit.BrokerInbox} and
 *       {@link dev.outboxjava.testkit.BrokerMessages} for what arrived at a real broker.</li>
 *   <li>{@link dev.outboxjava.testkit.OutboxExtension} — the fakes as test parameters;
 *       {@link dev.outboxjava.testkit.RabbitMqExtension} and {@link dev.outboxjava.testkit.KafkaExtension}
 *       — shared brokers from the fixtures with per-class destinations.</li>
 * </ul>
 *
 * The in-memory store and the manual clock are the core's own
 * ({@link dev.outboxjava.core.memory.InMemoryOutboxStore}, {@link dev.outboxjava.core.time.ManualClock});
 * this module brings them along and does not copy them. Service fixtures live in
 * {@code dev.outboxjava.testkit.postgres}, {@code .kafka} and {@code .rabbitmq}; contract suites in
 * {@code dev.outboxjava.testkit.contract}.
 */
package dev.outboxjava.testkit;
