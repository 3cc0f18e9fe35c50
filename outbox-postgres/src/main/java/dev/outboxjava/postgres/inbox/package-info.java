/**
 * The inbox on PostgreSQL: effectively-once processing on the consumer side.
 *
 * <p>The outbox delivers every event at least once. A relay that dies between the broker's
 * acknowledgement and its mark publishes the event again after the lease expires, and brokers
 * redeliver what a consumer did not acknowledge; every copy carries the same id (the CloudEvents
 * id, which is the outbox event's id). {@link dev.outboxjava.postgres.inbox.PostgresInbox} makes a
 * consumer's effect happen once per id: it records {@code (consumer_name, message_id)} in the
 * inbox table IN THE SAME TRANSACTION as the effect, and skips the work when the record exists.
 *
 * <h2>Usage</h2>
 * <pre>{@code
 * PostgresInbox inbox = PostgresInbox.create(dataSource, PostgresInboxConfig.ofDefaults());
 * inbox.ensureSchema();                        // or run the migrations in db/outbox/postgresql/inbox
 *
 * // for each received message, e.g. with its CloudEvents id:
 * InboxResult result = inbox.process("shipping.order-placed", messageId, connection -> {
 *     try (PreparedStatement insert = connection.prepareStatement(
 *             "INSERT INTO shipments (order_id, sku) VALUES (?, ?)")) {
 *         insert.setObject(1, order.id());
 *         insert.setString(2, order.sku());
 *         insert.executeUpdate();              // the effect, in the inbox's transaction
 *     }
 * });                                          // committed together with the message id
 * // result == PROCESSED the first time, DUPLICATE for every redelivery; acknowledge either way
 * }</pre>
 * The work's checked exception (here {@link java.sql.SQLException}) passes through
 * {@code process} unchanged after the rollback, so the message is not acknowledged and is
 * redelivered. With jOOQ, wrap the connection: {@code DSL.using(connection, SQLDialect.POSTGRES)}.
 * Broker helpers run a received message through an inbox and acknowledge only after the commit:
 * {@code dev.outboxjava.kafka.inbox.KafkaInboxConsumer} (commits offsets after the records are
 * processed) and {@code dev.outboxjava.rabbitmq.inbox.RabbitMqInbox} ({@code basicAck} after the
 * commit, {@code basicNack} with requeue on failure). A framework that manages the transaction
 * itself calls {@link dev.outboxjava.postgres.inbox.PostgresInbox#claim} inside it instead.
 *
 * <h2>Guarantees</h2>
 * <ul>
 *   <li><b>Once per consumer and id.</b> Deliveries of the same id to the same consumer name run the
 *       work once, however many there are, sequential or concurrent. Different consumer names (two
 *       handlers of one message) each process it once.</li>
 *   <li><b>Concurrent duplicates.</b> The record is inserted first
 *       ({@code INSERT ... ON CONFLICT DO NOTHING}); a concurrent duplicate blocks on the primary key
 *       until the first delivery's transaction ends, then sees a duplicate (first committed) or runs
 *       the work itself (first rolled back). No error, no deadlock. Waiting deliveries hold a pool
 *       connection each; size the pool accordingly. Requires READ COMMITTED, PostgreSQL's default.</li>
 *   <li><b>Failure.</b> When the work or the commit fails, the effect and the record roll back
 *       together: a redelivery runs the work again.</li>
 *   <li><b>Scope.</b> Only what the work writes through the given connection is covered. A call to
 *       another system (an email API, an HTTP service) from inside the work can happen again when the
 *       commit fails after it: make such calls idempotent, or write them to an outbox in the same
 *       transaction and let a relay make them.</li>
 * </ul>
 *
 * <h2>Retention: the deduplication window</h2>
 * Records are deleted after a retention window by
 * {@link dev.outboxjava.core.inbox.InboxCleaner} (default 14 days; chunks of 5,000 rows, oldest
 * first, at most 20 chunks per tick) through
 * {@link dev.outboxjava.postgres.inbox.PostgresInbox#cleanUp}, which uses the
 * {@code processed_at} index:
 * <pre>{@code
 * InboxCleaner cleaner = new InboxCleaner(inbox, InboxCleanerConfig.ofDefaults(), Clock.systemUTC());
 * scheduler.scheduleWithFixedDelay(cleaner::runOnce, 1, 60, TimeUnit.MINUTES);
 * }</pre>
 * <b>Caveat:</b> a duplicate that arrives after its record was deleted is NOT recognised and runs the
 * work again. Choose a window longer than the longest time a copy can still arrive: the broker's
 * retention (a Kafka consumer group reset or replay re-reads everything still retained), an outbox
 * relay outage plus the sweeper's lease timeout, and how long a consumer may be stopped.
 *
 * <h2>Table</h2>
 * One table per database (default {@code outbox_inbox}, configurable and validated like the outbox
 * table: see {@link dev.outboxjava.postgres.inbox.PostgresInboxConfig}) with columns
 * {@code consumer_name}, {@code message_id}, {@code processed_at}, primary key
 * {@code (consumer_name, message_id)} and an index on {@code processed_at}. Consumer names are up to
 * 200 characters, message ids up to 255. {@code processed_at} comes from the injected clock.
 */
package dev.outboxjava.postgres.inbox;
