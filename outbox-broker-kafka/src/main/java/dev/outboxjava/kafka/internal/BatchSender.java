package dev.outboxjava.kafka.internal;

import dev.outboxjava.core.OutboxEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
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
 * <p>Before the first record it looks up the partitions of every topic of the batch at once, off the
 * sender thread ({@link TopicLookups}), and waits for them together at most {@link #METADATA_PATIENCE}
 * (or {@code max.block.ms}, when shorter). A topic still without metadata then is asked about through
 * the admin client: one that does not exist is unroutable, anything else a retryable failure, and
 * either fails that topic's events once, while the other topics' events are sent. So a missing topic,
 * or one of a cluster that does not answer, costs the batch that wait instead of {@code max.block.ms}
 * on the sender thread (which every batch of every relay thread queues behind). A topic found missing
 * is asked about again before each later batch (one request) instead of being waited for. The first
 * time a topic is seen, its events are also held back (retryably) until all its partitions are served:
 * Kafka's new-topic race, see {@code checkServed}. An event that failed (for whatever reason) before a
 * later event of its key is handed over holds that event back
 * ({@link dev.outboxjava.core.port.KeyHoldBack}), so a retry cannot overtake it.
 */
public final class BatchSender implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(BatchSender.class);

    /** How long the events of a topic whose partitions are not all served are held back (see checkServed). */
    public static final Duration UNSERVED_TOPIC_PATIENCE = Duration.ofSeconds(60);

    /**
     * How long a batch waits for the metadata of its topics (all of them together) before asking the
     * cluster about the topics still without it. The producer has a known topic's metadata at once, and
     * fetches a new one's in a round trip (a cluster that creates topics on demand creates it then).
     */
    public static final Duration METADATA_PATIENCE = Duration.ofSeconds(2);

    /** Most topics remembered as missing; past it the memory starts afresh (they are then waited for once more). */
    static final int MAX_REMEMBERED_MISSING_TOPICS = 10_000;

    private final ProducerLifecycle producers;
    private final ClusterProbe probe;
    private final Duration probeTimeout;
    private final Duration metadataPatience;
    private final LongSupplier nanoTime;
    private final TopicLookups lookups;
    /** Topics the cluster said do not exist: asked about again before a batch, instead of waited for. */
    private final Set<String> missingTopics = ConcurrentHashMap.newKeySet();
    /**
     * Topics whose partitions were all found served, with their partition count then: checked once per
     * topic, and again when partitions are added (see checkServed).
     */
    private final Map<String, Integer> servedTopics = new ConcurrentHashMap<>();
    /** When a topic was first found with partitions not served yet ({@link System#nanoTime()}). */
    private final Map<String, Long> unservedSince = new ConcurrentHashMap<>();

    public BatchSender(ProducerLifecycle producers, ClusterProbe probe, Duration maxBlock, Duration probeTimeout) {
        this(producers, probe, maxBlock, probeTimeout, METADATA_PATIENCE, System::nanoTime);
    }

    /**
     * @param metadataPatience how long a batch waits for its topics' metadata ({@link #METADATA_PATIENCE}
     *                         but in tests); {@code maxBlock} when shorter
     * @param nanoTime         the clock of {@link #UNSERVED_TOPIC_PATIENCE} ({@link System#nanoTime()} but in tests)
     */
    public BatchSender(
            ProducerLifecycle producers,
            ClusterProbe probe,
            Duration maxBlock,
            Duration probeTimeout,
            Duration metadataPatience,
            LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
        this.producers = producers;
        this.probe = probe;
        this.probeTimeout = probeTimeout;
        this.metadataPatience = metadataPatience.compareTo(maxBlock) < 0 ? metadataPatience : maxBlock;
        this.lookups = new TopicLookups("outbox-kafka-metadata-");
    }

    /** Stops the metadata lookups under way; call once the producer is closed. */
    @Override
    public void close() {
        lookups.close();
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
        Map<String, TopicCheck> topicChecks = checkTopics(producer, destinations(batch), deadlineNanos);
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
            TopicCheck topic = topicChecks.get(event.destination());
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

    private static Set<String> destinations(List<OutboxEvent> batch) {
        Set<String> topics = new LinkedHashSet<>();
        for (OutboxEvent event : batch) {
            topics.add(event.destination());
        }
        return topics;
    }

    /** Whether records for each topic of a batch can be handed over, waiting at most the metadata patience. */
    private Map<String, TopicCheck> checkTopics(
            Producer<String, byte[]> producer, Set<String> topics, long deadlineNanos) {
        Map<String, TopicCheck> checks = new HashMap<>();
        List<String> remembered = new ArrayList<>();
        for (String topic : topics) {
            if (!TopicNames.isValid(topic)) {
                // Checked here: the producer would keep asking the cluster for an invalid name's metadata
                // (and log an error each time) long after the event was given up.
                checks.put(
                        topic,
                        TopicCheck.problem(
                                "topic '" + topic + "': "
                                        + KafkaErrors.classify(new InvalidTopicException(TopicNames.RULE))
                                                .reason(),
                                false));
            } else if (missingTopics.contains(topic)) {
                remembered.add(topic);
            }
        }
        if (!remembered.isEmpty()) {
            // One request tells whether they still do not exist; waiting for their metadata would cost
            // the whole patience again.
            Map<String, ClusterProbe.TopicState> states = probe.topicStates(remembered, probeBudget(deadlineNanos));
            for (String topic : remembered) {
                if (states.get(topic) == ClusterProbe.TopicState.MISSING) {
                    checks.put(topic, TopicCheck.missing(missingReason(topic)));
                } else {
                    missingTopics.remove(topic);
                }
            }
        }
        Map<String, CompletableFuture<Integer>> partitions = new LinkedHashMap<>();
        for (String topic : topics) {
            if (!checks.containsKey(topic)) {
                partitions.put(topic, lookups.partitions(producer, topic));
            }
        }
        long waitStart = System.nanoTime();
        long wait = Math.min(metadataPatience.toNanos(), Math.max(0, deadlineNanos - waitStart));
        List<String> unanswered = new ArrayList<>();
        for (Map.Entry<String, CompletableFuture<Integer>> lookup : partitions.entrySet()) {
            String topic = lookup.getKey();
            try {
                int count = lookup.getValue()
                        .get(Math.max(0, wait - (System.nanoTime() - waitStart)), TimeUnit.NANOSECONDS);
                checks.put(
                        topic,
                        servedTopics.getOrDefault(topic, 0) == count
                                ? TopicCheck.USABLE
                                : checkServed(topic, count, deadlineNanos));
            } catch (java.util.concurrent.TimeoutException e) {
                unanswered.add(topic);
            } catch (ExecutionException e) {
                Throwable cause = KafkaErrors.unwrap(e);
                if (cause instanceof TimeoutException) {
                    unanswered.add(topic);
                } else {
                    KafkaErrors.Classified classified = KafkaErrors.classify(cause);
                    if (classified.producerBroken()) {
                        producers.replace(producer, classified.reason());
                    }
                    checks.put(
                            topic,
                            TopicCheck.problem(
                                    "topic '" + topic + "': " + classified.reason(), classified.retryable()));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                checks.put(
                        topic,
                        TopicCheck.problem(
                                "topic '" + topic
                                        + "': interrupted while waiting for its metadata (publisher closing?)",
                                true));
            }
        }
        if (!unanswered.isEmpty()) {
            Map<String, ClusterProbe.TopicState> states = probe.topicStates(unanswered, probeBudget(deadlineNanos));
            for (String topic : unanswered) {
                ClusterProbe.TopicState state = states.get(topic);
                if (state == ClusterProbe.TopicState.MISSING) {
                    remember(topic);
                    String reason = missingReason(topic);
                    // The relay warns about it, once per topic and interval, and dead-letters the events
                    // after its small budget for unroutable destinations.
                    log.debug("{}", reason);
                    checks.put(topic, TopicCheck.missing(reason));
                } else {
                    checks.put(
                            topic,
                            TopicCheck.problem(
                                    "no metadata for topic '" + topic + "' within " + metadataPatience.toMillis()
                                            + " ms: "
                                            + (state == ClusterProbe.TopicState.EXISTS
                                                    ? "the topic exists; are its partitions without a leader?"
                                                    : "is the Kafka cluster reachable?"),
                                    true));
                }
            }
        }
        return checks;
    }

    private void remember(String topic) {
        if (missingTopics.size() >= MAX_REMEMBERED_MISSING_TOPICS) {
            missingTopics.clear();
        }
        missingTopics.add(topic);
    }

    private static String missingReason(String topic) {
        return "topic '" + topic + "' does not exist and the Kafka cluster did not create it on demand "
                + "(auto.create.topics.enable=false): create the topic, or fix the event's destination";
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
