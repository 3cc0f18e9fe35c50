package dev.outboxjava.examples.consuming;

import dev.outboxjava.core.inbox.Inbox;
import dev.outboxjava.examples.orders.OrderEvents;
import dev.outboxjava.kafka.inbox.KafkaInbox;
import dev.outboxjava.kafka.inbox.KafkaInboxConsumer;
import java.sql.Connection;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Recipe: effectively-once consuming from Kafka. Each {@code order.placed} record credits loyalty
 * points through the PostgreSQL inbox: the credit and the record's id commit in ONE database
 * transaction, and the Kafka offsets are committed only after that commit.
 *
 * <p>What each failure does:
 * <ul>
 *   <li>the consumer dies after the database commit and before the offset commit: the group's next
 *       consumer receives the records again, the inbox finds their ids and skips them;</li>
 *   <li>the relay published an event twice (it died between the broker's acknowledgement and its
 *       mark): the second copy carries the same {@code ce_id} and is skipped the same way;</li>
 *   <li>the credit fails: the transaction rolls back with the id unrecorded, the partition is
 *       rewound to that record, and the next poll delivers it again.</li>
 * </ul>
 * The loop itself is the library's {@link KafkaInboxConsumer}; this class only wires it. Used from
 * one thread, like the Kafka consumer; {@link #stop()} may be called from another.
 */
public final class KafkaLoyaltyConsumer {

    /** The inbox's name for this handler: stable across restarts and deployments. */
    public static final String CONSUMER_NAME = "loyalty.order-placed";

    private final KafkaInboxConsumer<String, Connection> loop;

    /**
     * @param kafka  a consumer created with {@link #consumerProperties}; this class subscribes it to
     *               {@code topic} and does not close it
     * @param inbox  the inbox on the database that holds {@code points}
     * @param points the business table the records credit
     */
    public KafkaLoyaltyConsumer(
            Consumer<String, byte[]> kafka, String topic, Inbox<Connection> inbox, LoyaltyPoints points) {
        Objects.requireNonNull(points, "points");
        // tag::kafka-inbox[]
        kafka.subscribe(List.of(topic));
        this.loop = KafkaInboxConsumer.create(
                kafka,
                KafkaInbox.of(inbox, CONSUMER_NAME),
                (connection, record) -> points.credit(connection, OrderEvents.readPlaced(record.value())));
        // end::kafka-inbox[]
    }

    /**
     * The consumer settings the recipe needs: offsets committed by the loop after processing, never
     * automatically; a new group starts at the earliest record.
     */
    public static Map<String, Object> consumerProperties(String bootstrapServers, String groupId) {
        Map<String, Object> properties = new HashMap<>();
        properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        properties.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        // auto-commit would commit offsets of records whose transaction has not committed yet
        properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        properties.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        properties.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        properties.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        return properties;
    }

    /**
     * Polls once: credits every new record in its own inbox transaction, skips the ones processed
     * before, then commits the offsets of the processed records.
     */
    public KafkaInboxConsumer.PollResult pollOnce(Duration timeout) {
        return loop.pollOnce(timeout);
    }

    /** Polls until {@link #stop()}, pausing a second after a failure. */
    public void run() {
        loop.run(Duration.ofMillis(500), Duration.ofSeconds(1));
    }

    /** Ends {@link #run()} after the record in progress; callable from any thread. */
    public void stop() {
        loop.stop();
    }
}
