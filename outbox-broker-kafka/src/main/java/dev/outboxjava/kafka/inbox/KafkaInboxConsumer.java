package dev.outboxjava.kafka.inbox;

import dev.outboxjava.core.inbox.InboxResult;
import dev.outboxjava.core.inbox.UnidentifiableMessageException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Kafka consumer loop that runs every record through a {@link KafkaInbox} and commits offsets
 * only after the records were processed: poll, process each record (the effect and its id commit
 * in the inbox's transaction), then {@code commitSync} the offsets just past the processed records.
 * A crash anywhere before the commit redelivers the records; the inbox recognises the ones already
 * processed, so each record's effect happens once.
 *
 * <p>When a record fails (its work throws, the inbox's database is down, or it has no CloudEvents
 * id), the records processed before it are committed, every partition of the batch is rewound to
 * its first unprocessed record, and {@link #pollOnce} reports the failure: the next poll delivers
 * the failed record again, in order. A record that can never succeed therefore blocks its
 * partition until an operator intervenes — on purpose: skipping it would lose it. A record without
 * a {@code ce_id} header is such a record; it is logged at ERROR with its topic, partition and offset.
 *
 * <pre>{@code
 * // enable.auto.commit=false: offsets are committed by this loop, after processing
 * try (KafkaConsumer<String, byte[]> kafka = new KafkaConsumer<>(props)) {
 *     kafka.subscribe(List.of("orders"));
 *     KafkaInboxConsumer<String, Connection> loop = KafkaInboxConsumer.create(kafka,
 *             KafkaInbox.of(postgresInbox, "shipping.order-placed"),
 *             (connection, record) -> createShipment(connection, record.value()));
 *     loop.run(Duration.ofMillis(500), Duration.ofSeconds(1));   // until loop.stop() from another thread
 * }
 * }</pre>
 *
 * <p>The Kafka consumer must be created with {@code enable.auto.commit=false} (auto-commit would
 * commit offsets of records not yet processed). This class neither subscribes nor closes it. Like
 * the Kafka consumer, it is used from one thread; only {@link #stop()} may be called from another.
 *
 * @param <K> the record key type
 * @param <T> the inbox's transaction handle
 */
public final class KafkaInboxConsumer<K, T> {

    /** The consumer's work for one record, in the inbox's transaction. */
    @FunctionalInterface
    public interface RecordHandler<K, T> {
        /**
         * Applies the record's effect through {@code transaction}; do not commit, roll back or close it.
         * Throwing anything rolls the effect back and has the record delivered again.
         */
        void handle(T transaction, ConsumerRecord<K, byte[]> record) throws Exception;
    }

    /**
     * What one poll did.
     *
     * @param processed  records whose work ran and committed
     * @param duplicates records skipped because their id was processed before
     * @param failure    why processing stopped early; the failed record and those after it will be
     *                   delivered again
     */
    public record PollResult(int processed, int duplicates, Optional<Exception> failure) {

        public PollResult {
            Objects.requireNonNull(failure, "failure");
        }

        /** Nothing arrived. */
        public static final PollResult EMPTY = new PollResult(0, 0, Optional.empty());
    }

    private static final Logger log = LoggerFactory.getLogger(KafkaInboxConsumer.class);

    private final Consumer<K, byte[]> consumer;
    private final KafkaInbox<T> inbox;
    private final RecordHandler<K, T> handler;
    private final CountDownLatch stopped = new CountDownLatch(1);

    private KafkaInboxConsumer(Consumer<K, byte[]> consumer, KafkaInbox<T> inbox, RecordHandler<K, T> handler) {
        this.consumer = consumer;
        this.inbox = inbox;
        this.handler = handler;
    }

    /**
     * @param consumer a subscribed (or assigned) Kafka consumer with {@code enable.auto.commit=false}
     * @param inbox    the inbox and consumer name records are deduplicated under
     * @param handler  the effect of one record
     */
    public static <K, T> KafkaInboxConsumer<K, T> create(
            Consumer<K, byte[]> consumer, KafkaInbox<T> inbox, RecordHandler<K, T> handler) {
        return new KafkaInboxConsumer<>(
                Objects.requireNonNull(consumer, "consumer"),
                Objects.requireNonNull(inbox, "inbox"),
                Objects.requireNonNull(handler, "handler"));
    }

    /**
     * Polls once, processes the records partition by partition in offset order, and commits the
     * offsets of the processed ones synchronously.
     *
     * @throws KafkaException from {@code poll} or {@code commitSync} (e.g. the group rebalanced);
     *                        uncommitted records are delivered again and recognised as duplicates
     */
    public PollResult pollOnce(Duration timeout) {
        ConsumerRecords<K, byte[]> records = consumer.poll(Objects.requireNonNull(timeout, "timeout"));
        if (records.isEmpty()) {
            return PollResult.EMPTY;
        }
        Map<TopicPartition, OffsetAndMetadata> done = new LinkedHashMap<>();
        int processed = 0;
        int duplicates = 0;
        for (TopicPartition partition : records.partitions()) {
            for (ConsumerRecord<K, byte[]> record : records.records(partition)) {
                InboxResult result;
                try {
                    result = inbox.process(record, transaction -> handler.handle(transaction, record));
                } catch (Exception e) {
                    logFailure(record, e);
                    rewind(records, done);
                    commit(done);
                    return new PollResult(processed, duplicates, Optional.of(e));
                }
                if (result.processed()) {
                    processed++;
                } else {
                    duplicates++;
                }
                done.put(partition, new OffsetAndMetadata(record.offset() + 1, record.leaderEpoch(), ""));
            }
        }
        commit(done);
        return new PollResult(processed, duplicates, Optional.empty());
    }

    /**
     * Polls and processes until {@link #stop()}, pausing {@code failureBackoff} after a failed poll.
     * Failures of {@code poll}/{@code commitSync} are logged and retried after the pause too.
     */
    public void run(Duration pollTimeout, Duration failureBackoff) {
        Objects.requireNonNull(pollTimeout, "pollTimeout");
        Objects.requireNonNull(failureBackoff, "failureBackoff");
        while (stopped.getCount() > 0) {
            boolean failed;
            try {
                failed = pollOnce(pollTimeout).failure().isPresent();
            } catch (WakeupException e) {
                if (stopped.getCount() == 0) {
                    break;
                }
                throw e;
            } catch (KafkaException e) {
                log.warn(
                        "inbox consumer '{}': poll or commit failed, retrying in {}: {}",
                        inbox.consumerName(),
                        failureBackoff,
                        e.toString());
                failed = true;
            }
            if (failed && pause(failureBackoff)) {
                break;
            }
        }
    }

    /**
     * Ends {@link #run} after the record in progress; callable from any thread. It wakes the Kafka
     * consumer up, so a consumer reused afterwards may throw one {@link WakeupException} from its next
     * blocking call.
     */
    public void stop() {
        stopped.countDown();
        consumer.wakeup();
    }

    private void rewind(ConsumerRecords<K, byte[]> records, Map<TopicPartition, OffsetAndMetadata> done) {
        for (TopicPartition partition : records.partitions()) {
            List<ConsumerRecord<K, byte[]>> batch = records.records(partition);
            long last = batch.get(batch.size() - 1).offset();
            OffsetAndMetadata processedUpTo = done.get(partition);
            long next = processedUpTo != null
                    ? processedUpTo.offset()
                    : batch.get(0).offset();
            if (next <= last) {
                consumer.seek(partition, next);
            }
        }
    }

    private void commit(Map<TopicPartition, OffsetAndMetadata> offsets) {
        if (!offsets.isEmpty()) {
            consumer.commitSync(offsets);
        }
    }

    private void logFailure(ConsumerRecord<K, byte[]> record, Exception e) {
        if (e instanceof UnidentifiableMessageException) {
            log.error(
                    "inbox consumer '{}': record {} cannot be deduplicated and blocks its partition until an "
                            + "operator moves the group's offset past it: {}",
                    inbox.consumerName(),
                    KafkaInbox.describe(record),
                    e.getMessage());
        } else {
            log.warn(
                    "inbox consumer '{}': record {} failed and will be delivered again: {}",
                    inbox.consumerName(),
                    KafkaInbox.describe(record),
                    e.toString());
        }
    }

    /** @return whether the loop was stopped meanwhile */
    private boolean pause(Duration backoff) {
        try {
            return stopped.await(backoff.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
        }
    }
}
