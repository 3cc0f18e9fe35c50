package dev.outboxjava.kafka.internal;

import dev.outboxjava.core.OutboxEvent;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Hands the events of one batch to the producer, in order, without waiting for acknowledgements:
 * each record's callback records its outcome. Runs on the publisher's single sender thread, so
 * batches reach the producer in the order they were published.
 *
 * <p>Before the first record of a topic it asks the producer for the topic's partitions, which waits
 * (at most {@code max.block.ms}) for metadata: a missing topic or an unreachable cluster then fails
 * that topic's events once instead of blocking on every record. The first time a topic is seen, its
 * events are also held back (retryably) until all its partitions are served: Kafka's new-topic race,
 * see {@code checkServed}. An event that failed (for whatever reason) before a later event of its
 * key is handed over holds that event back ({@link dev.outboxjava.core.port.KeyHoldBack}), so a retry
 * cannot overtake it.
 */
public final class BatchSender {

    private static final Logger log = LoggerFactory.getLogger(BatchSender.class);

    /** How long the events of a topic whose partitions are not all served are held back (see checkServed). */
    public static final Duration UNSERVED_TOPIC_PATIENCE = Duration.ofSeconds(60);

    private final ProducerLifecycle producers;
    private final ClusterProbe probe;
    private final Duration maxBlock;
    private final Duration probeTimeout;
    private final LongSupplier nanoTime;
    /**
     * Topics whose partitions were all found served, with their partition count then: checked once per
     * topic, and again when partitions are added (see checkServed).
     */
    private final Map<String, Integer> servedTopics = new ConcurrentHashMap<>();
    /** When a topic was first found with partitions not served yet ({@link System#nanoTime()}). */
    private final Map<String, Long> unservedSince = new ConcurrentHashMap<>();

    public BatchSender(ProducerLifecycle producers, ClusterProbe probe, Duration maxBlock, Duration probeTimeout) {
        this(producers, probe, maxBlock, probeTimeout, System::nanoTime);
    }

    /** @param nanoTime the clock of {@link #UNSERVED_TOPIC_PATIENCE} ({@link System#nanoTime()} but in tests) */
    public BatchSender(
            ProducerLifecycle producers,
            ClusterProbe probe,
            Duration maxBlock,
            Duration probeTimeout,
            LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
        this.producers = producers;
        this.probe = probe;
        this.maxBlock = maxBlock;
        this.probeTimeout = probeTimeout;
    }

    /**
     * Sends {@code batch}; every event gets its outcome in {@code outcomes}, now or from a callback.
     *
     * @param deadlineNanos {@link System#nanoTime()} after which no further event is handed over
     */
    public void send(List<OutboxEvent> batch, BatchOutcomes outcomes, long deadlineNanos) {
        Producer<String, byte[]> producer;
        try {
            producer = producers.current();
        } catch (RuntimeException e) {
            log.warn("cannot create the Kafka producer; the batch will be retried: {}", e.toString());
            outcomes.failRemaining(
                    0,
                    "cannot create the Kafka producer: "
                            + KafkaErrors.classify(e).reason());
            return;
        }
        Map<String, TopicCheck> topicChecks = new HashMap<>();
        for (int i = 0; i < batch.size(); i++) {
            if (outcomes.isDone()) {
                return;
            }
            if (System.nanoTime() - deadlineNanos > 0) {
                outcomes.failRemaining(
                        i, "the publish timeout ended before the event was handed to the Kafka producer");
                return;
            }
            if (!producers.isCurrent(producer)) {
                outcomes.failRemaining(
                        i, "not sent: the Kafka producer failed during this batch and is being " + "replaced");
                return;
            }
            OutboxEvent event = batch.get(i);
            TopicCheck topic =
                    topicChecks.computeIfAbsent(event.destination(), name -> checkTopic(producer, name, deadlineNanos));
            if (outcomes.holdBackIfKeyFailed(i)) {
                continue;
            }
            if (!topic.usable() && topic.unroutable()) {
                outcomes.unroutable(i, topic.problem());
            } else if (!topic.usable()) {
                outcomes.failed(i, topic.problem(), topic.retryable());
            } else {
                sendOne(producer, event, i, outcomes);
            }
        }
    }

    private void sendOne(Producer<String, byte[]> producer, OutboxEvent event, int index, BatchOutcomes outcomes) {
        ProducerRecord<String, byte[]> record;
        try {
            record = CloudEventRecords.toRecord(event);
        } catch (UnpublishableEventException e) {
            fail(event, index, outcomes, KafkaErrors.classify(e), e);
            return;
        }
        try {
            producer.send(record, (metadata, error) -> {
                if (error == null) {
                    outcomes.published(index);
                } else {
                    KafkaErrors.Classified classified = KafkaErrors.classify(error);
                    if (classified.producerBroken()) {
                        producers.replace(producer, classified.reason());
                    }
                    fail(event, index, outcomes, classified, error);
                }
            });
        } catch (RuntimeException e) {
            // Errors of the record itself come back through the callback; what send() throws is
            // about the producer (closed, fatal state, interrupted), so it is not trusted further.
            KafkaErrors.Classified classified = KafkaErrors.classify(e);
            if (classified.producerBroken() || !(KafkaErrors.unwrap(e) instanceof ApiException)) {
                producers.replace(producer, classified.reason());
            }
            fail(event, index, outcomes, classified, e);
        }
    }

    /** Whether records for a topic can be handed over, found once per topic and batch. */
    private record TopicCheck(boolean usable, String problem, boolean retryable, boolean unroutable) {
        static final TopicCheck USABLE = new TopicCheck(true, "", false, false);

        static TopicCheck problem(String problem, boolean retryable) {
            return new TopicCheck(false, problem, retryable, false);
        }

        /** The topic does not exist: retryable within the relay's budget for unroutable events. */
        static TopicCheck missing(String problem) {
            return new TopicCheck(false, problem, true, true);
        }
    }

    private TopicCheck checkTopic(Producer<String, byte[]> producer, String topic, long deadlineNanos) {
        if (!TopicNames.isValid(topic)) {
            // Checked here: the producer would keep asking the cluster for an invalid name's metadata
            // (and log an error each time) long after the event was given up.
            return TopicCheck.problem(
                    "topic '" + topic + "': "
                            + KafkaErrors.classify(new InvalidTopicException(TopicNames.RULE))
                                    .reason(),
                    false);
        }
        try {
            int partitions = producer.partitionsFor(topic).size();
            return servedTopics.getOrDefault(topic, 0) == partitions
                    ? TopicCheck.USABLE
                    : checkServed(topic, partitions, deadlineNanos);
        } catch (TimeoutException e) {
            if (probe.topicState(topic, probeBudget(deadlineNanos)) == ClusterProbe.TopicState.MISSING) {
                // The relay warns about it, once per topic and interval, and dead-letters the events after
                // its small budget for unroutable destinations.
                String reason = "topic '" + topic + "' does not exist and the Kafka cluster does not create topics on "
                        + "demand (auto.create.topics.enable=false), found after waiting max.block.ms="
                        + maxBlock.toMillis()
                        + " ms for its metadata: create the topic, or fix the event's destination";
                log.debug("{}", reason);
                return TopicCheck.missing(reason);
            }
            return TopicCheck.problem(
                    "no metadata for topic '" + topic + "' within max.block.ms="
                            + maxBlock.toMillis() + " ms: is the Kafka cluster reachable? ("
                            + e.getMessage() + ")",
                    true);
        } catch (RuntimeException e) {
            KafkaErrors.Classified classified = KafkaErrors.classify(e);
            if (classified.producerBroken()) {
                producers.replace(producer, classified.reason());
            }
            return TopicCheck.problem("topic '" + topic + "': " + classified.reason(), classified.retryable());
        }
    }

    /**
     * The first time a topic (or a partition count of it) is seen, checks that its partition leaders
     * serve it. Records sent to a topic created (by hand or on demand) a moment ago can lose a race in
     * Kafka (KAFKA-15591): the first request is refused because the broker has not opened the
     * partition yet, a later one is appended, and the first is then refused as out of sequence until
     * its delivery timeout, behind records that came after it. Held back instead, the events are
     * retried once the partitions are open, in order. A new topic is served within milliseconds; one
     * that is still not served after {@link #UNSERVED_TOPIC_PATIENCE} has a partition without a leader
     * (an outage, not a new topic), and its events are sent as they were before this check, so the
     * other partitions keep moving.
     */
    private TopicCheck checkServed(String topic, int partitions, long deadlineNanos) {
        ClusterProbe.PartitionsState state = probe.partitionsState(topic, partitions, probeBudget(deadlineNanos));
        if (state == ClusterProbe.PartitionsState.NOT_YET_SERVED) {
            long firstSeen = unservedSince.computeIfAbsent(topic, name -> nanoTime.getAsLong());
            if (nanoTime.getAsLong() - firstSeen < UNSERVED_TOPIC_PATIENCE.toNanos()) {
                return TopicCheck.problem(
                        "topic '" + topic + "' is known, but not all of its " + partitions
                                + " partitions are served by their leaders yet (a topic created a moment ago?)",
                        true);
            }
            log.warn(
                    "not all {} partitions of topic '{}' are served by a leader after {} s; sending its events "
                            + "anyway, the producer retries what a missing leader refuses",
                    partitions,
                    topic,
                    UNSERVED_TOPIC_PATIENCE.toSeconds());
        } else if (state == ClusterProbe.PartitionsState.UNANSWERABLE) {
            log.debug(
                    "cannot tell whether the partitions of topic '{}' are served (no permission to list offsets?); "
                            + "sending anyway",
                    topic);
        }
        unservedSince.remove(topic);
        servedTopics.put(topic, partitions);
        return TopicCheck.USABLE;
    }

    private Duration probeBudget(long deadlineNanos) {
        Duration left = Duration.ofNanos(Math.max(0, deadlineNanos - System.nanoTime()));
        return probeTimeout.compareTo(left) < 0 ? probeTimeout : left;
    }

    private static void fail(
            OutboxEvent event, int index, BatchOutcomes outcomes, KafkaErrors.Classified classified, Throwable error) {
        String reason = "topic '" + event.destination() + "': " + classified.reason();
        outcomes.failed(index, reason, classified.retryable());
        if (log.isDebugEnabled()) {
            MDC.put("event_id", event.id().toString());
            MDC.put("event_type", event.type());
            MDC.put("key", event.keyOrEmpty());
            try {
                log.debug(
                        "event {} not published ({}): {}",
                        event.id(),
                        classified.retryable() ? "retryable" : "not retryable",
                        reason,
                        error);
            } finally {
                MDC.remove("event_id");
                MDC.remove("event_type");
                MDC.remove("key");
            }
        }
    }
}
