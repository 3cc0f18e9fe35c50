package dev.outboxjava.kafka.inbox;

import dev.outboxjava.core.inbox.Inbox;
import dev.outboxjava.core.inbox.InboxKey;
import dev.outboxjava.core.inbox.InboxResult;
import dev.outboxjava.core.inbox.InboxWork;
import dev.outboxjava.core.inbox.UnidentifiableMessageException;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.slf4j.MDC;

/**
 * Runs the work for a received Kafka record through an {@link Inbox}, keyed by the record's
 * CloudEvents id: the {@value #CLOUD_EVENTS_ID_HEADER} header of CloudEvents binary content mode,
 * which the outbox's Kafka publisher sets to the event id. Redeliveries of a record (a relay that
 * republished after a crash, a consumer that restarted before committing its offset) are skipped.
 *
 * <pre>{@code
 * KafkaInbox<Connection> inbox = KafkaInbox.of(postgresInbox, "shipping.order-placed");
 * for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofSeconds(1))) {
 *     inbox.process(record, connection -> createShipment(connection, record.value()));
 * }
 * consumer.commitSync();   // only after the records were processed
 * }</pre>
 * {@link KafkaInboxConsumer} is that loop, with per-partition offsets and rewinding on failure.
 * Structured-mode CloudEvents (the id inside a JSON body) are not read. While the work runs, the
 * MDC holds {@code event_id}, {@code event_type} ({@code ce_type}) and {@code key}. Thread-safe.
 *
 * @param <T> the inbox's transaction handle
 */
public final class KafkaInbox<T> {

    /** The CloudEvents id header of the Kafka protocol binding (binary content mode). */
    public static final String CLOUD_EVENTS_ID_HEADER = "ce_id";
    /** The CloudEvents type header; put in the MDC as {@code event_type} while the work runs. */
    public static final String CLOUD_EVENTS_TYPE_HEADER = "ce_type";

    private final Inbox<T> inbox;
    private final String consumerName;

    private KafkaInbox(Inbox<T> inbox, String consumerName) {
        this.inbox = inbox;
        this.consumerName = consumerName;
    }

    /**
     * @param inbox        where processed ids are recorded
     * @param consumerName a stable name of this handler, e.g. {@code shipping.order-placed} (not the
     *                     Kafka group id necessarily: one group may run several handlers)
     * @throws dev.outboxjava.core.InvalidConfigurationException when the name is blank or too long
     */
    public static <T> KafkaInbox<T> of(Inbox<T> inbox, String consumerName) {
        Objects.requireNonNull(inbox, "inbox");
        return new KafkaInbox<>(inbox, InboxKey.requireValidConsumerName(consumerName));
    }

    /** The consumer name records are deduplicated under. */
    public String consumerName() {
        return consumerName;
    }

    /**
     * The record's CloudEvents id: the last {@value #CLOUD_EVENTS_ID_HEADER} header as UTF-8; empty
     * when the header is absent or empty.
     */
    public static Optional<String> messageId(ConsumerRecord<?, ?> record) {
        String id = header(Objects.requireNonNull(record, "record"), CLOUD_EVENTS_ID_HEADER);
        return id == null || id.isEmpty() ? Optional.empty() : Optional.of(id);
    }

    /**
     * Runs {@code work} for the record unless this consumer already processed its id; see
     * {@link Inbox#process}. Commit the record's offset only after this returns (either result).
     *
     * @throws X                              whatever {@code work} threw, after rollback
     * @throws UnidentifiableMessageException when the record has no usable {@value #CLOUD_EVENTS_ID_HEADER}
     */
    public <X extends Exception> InboxResult process(ConsumerRecord<?, ?> record, InboxWork<T, X> work) throws X {
        Objects.requireNonNull(work, "work");
        String id = messageId(record)
                .orElseThrow(
                        () -> new UnidentifiableMessageException(
                                "the record at "
                                        + describe(record) + " has no " + CLOUD_EVENTS_ID_HEADER
                                        + " header, so consumer '" + consumerName
                                        + "' cannot deduplicate it; publish CloudEvents in binary mode (the outbox's Kafka publisher does)"));
        MDC.put("event_id", id);
        putIfPresent("event_type", header(record, CLOUD_EVENTS_TYPE_HEADER));
        putIfPresent("key", record.key() == null ? null : record.key().toString());
        try {
            return inbox.process(consumerName, id, work);
        } catch (UnidentifiableMessageException e) {
            throw new UnidentifiableMessageException("the record at " + describe(record) + ": " + e.getMessage());
        } finally {
            MDC.remove("event_id");
            MDC.remove("event_type");
            MDC.remove("key");
        }
    }

    private static void putIfPresent(String key, String value) {
        if (value != null) {
            MDC.put(key, value);
        }
    }

    private static String header(ConsumerRecord<?, ?> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null || header.value() == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    static String describe(ConsumerRecord<?, ?> record) {
        return record.topic() + "-" + record.partition() + "@" + record.offset();
    }
}
