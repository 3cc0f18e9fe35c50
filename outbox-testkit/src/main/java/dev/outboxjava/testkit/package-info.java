/**
 * Test support for code that uses Outbox for Java: fakes, assertions and JUnit 5 extensions, with no
 * broker or database engine on the class path.
 *
 * <ul>
 *   <li>{@link dev.outboxjava.testkit.RecordingPublisher} — a publisher that records what it was given;
 *       {@link dev.outboxjava.testkit.FaultyPublisher} — scripted broker faults around any publisher.</li>
 *   <li>{@link dev.outboxjava.testkit.OutboxAssertions} with {@link dev.outboxjava.testkit.EventFilter} —
 *       "was published", "nothing was published", "the outbox is drained", with failures that list what
 *       was there; {@code fixture.BrokerInbox} and {@code fixture.BrokerMessages} (artifact {@code outbox-testkit-fixtures},
 *       which {@code outbox-testkit-kafka} and {@code outbox-testkit-rabbitmq} bring) for what arrived at a
 *       real broker.</li>
 *   <li>{@link dev.outboxjava.testkit.OutboxExtension} — the fakes as test parameters;
 *       {@code rabbitmq.RabbitMqExtension} ({@code outbox-testkit-rabbitmq}) and {@code kafka.KafkaExtension}
 *       ({@code outbox-testkit-kafka}) — shared brokers from the fixtures with per-class destinations.</li>
 * </ul>
 *
 * The in-memory store and the manual clock are the core's own
 * ({@link dev.outboxjava.core.memory.InMemoryOutboxStore}, {@link dev.outboxjava.core.time.ManualClock});
 * this module brings them along and does not copy them. Contract suites are in
 * {@link dev.outboxjava.testkit.contract}. Service fixtures are artifacts of their own, each with its
 * engine only, in a package of its own: {@code dev.outboxjava.testkit.postgres} in
 * {@code outbox-testkit-postgres}, {@code .kafka} in {@code outbox-testkit-kafka}, {@code .rabbitmq} in
 * {@code outbox-testkit-rabbitmq}, {@code .fixture} (what they share) in {@code outbox-testkit-fixtures}.
 */
package dev.outboxjava.testkit;
