package dev.outboxjava.testkit;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import dev.outboxjava.testkit.contract.ReceivedMessage;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A consumer that runs in the background while a test acts, collecting every message that arrives
 * at one queue or topic as a {@link ReceivedMessage}. It is the supplier the broker-side assertions
 * poll:
 *
 * <pre>{@code
 * try (BrokerInbox inbox = BrokerInbox.amqp(rabbit.connectionFactory(), orders.queue())) {
 *     orderService.placeOrder("order-7");
 *     OutboxAssertions.awaitReceived(inbox, EventFilter.ofType("order.placed").withKey("order-7"),
 *             Duration.ofSeconds(30));
 * }
 * }</pre>
 *
 * An AMQP inbox acknowledges what it takes (it empties the queue); a Kafka inbox reads every
 * partition from the beginning without a consumer group. {@link #close()} stops the consumer.
 */
public final class BrokerInbox implements Supplier<List<ReceivedMessage>>, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(BrokerInbox.class);
    private static final Duration KAFKA_POLL = Duration.ofMillis(100);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);

    private final List<ReceivedMessage> received = new CopyOnWriteArrayList<>();
    private final String source;
    private AutoCloseable stop = () -> {};

    private BrokerInbox(String source) {
        this.source = source;
    }

    /**
     * Starts consuming {@code queue} on a connection of its own, named
     * {@code outbox-testkit-inbox-<random>} (so it can be told apart in the broker's list).
     *
     * @throws IllegalStateException when the broker cannot be reached or the queue does not exist
     */
    public static BrokerInbox amqp(ConnectionFactory factory, String queue) {
        Objects.requireNonNull(factory, "factory");
        Objects.requireNonNull(queue, "queue");
        BrokerInbox inbox = new BrokerInbox("AMQP queue " + queue);
        try {
            Connection connection = factory.newConnection("outbox-testkit-inbox-" + UUID.randomUUID());
            try {
                Channel channel = connection.createChannel();
                channel.basicConsume(
                        queue,
                        true,
                        (tag, delivery) -> inbox.received.add(BrokerMessages.fromAmqp(delivery)),
                        tag -> {});
            } catch (IOException | RuntimeException e) {
                connection.close();
                throw e;
            }
            inbox.stop = connection::close;
        } catch (IOException | TimeoutException e) {
            throw new IllegalStateException(
                    "cannot consume AMQP queue '" + queue + "' at " + factory.getHost() + ":" + factory.getPort()
                            + " (does the queue exist?): " + e,
                    e);
        }
        return inbox;
    }

    /**
     * Starts reading every partition of {@code topic} from the beginning, on a thread of its own.
     *
     * @param consumerProperties at least {@code bootstrap.servers}; the deserializers, group and offset
     *                           settings are the inbox's own (byte values, no group, from the beginning)
     */
    public static BrokerInbox kafka(Map<String, Object> consumerProperties, String topic) {
        Objects.requireNonNull(consumerProperties, "consumerProperties");
        Objects.requireNonNull(topic, "topic");
        Map<String, Object> config = new HashMap<>(consumerProperties);
        config.remove(ConsumerConfig.GROUP_ID_CONFIG);
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        BrokerInbox inbox = new BrokerInbox("Kafka topic " + topic);
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config);
        List<TopicPartition> partitions;
        try {
            partitions = consumer.partitionsFor(topic, STOP_TIMEOUT).stream()
                    .map(info -> new TopicPartition(info.topic(), info.partition()))
                    .toList();
            if (partitions.isEmpty()) {
                throw new IllegalStateException("Kafka topic '" + topic + "' has no partitions (does it exist?)");
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
        } catch (RuntimeException e) {
            consumer.close();
            throw e;
        }
        Thread reader = new Thread(
                () -> {
                    try (consumer) {
                        while (!Thread.currentThread().isInterrupted()) {
                            consumer.poll(KAFKA_POLL)
                                    .forEach(record -> inbox.received.add(BrokerMessages.fromKafka(record)));
                        }
                    } catch (RuntimeException e) {
                        // A WakeupException is close() asking the consumer to stop. It is tested with instanceof, not
                        // caught by name: the JVM loads the types of catch clauses when it verifies this class, and a
                        // test with only the AMQP client (outbox-testkit-rabbitmq) has no Kafka classes to load.
                        if (!(e instanceof WakeupException)) {
                            log.warn("the Kafka inbox of topic {} stopped reading: {}", topic, e.toString());
                        }
                    }
                },
                "outbox-testkit-inbox-" + topic);
        reader.setDaemon(true);
        reader.start();
        inbox.stop = () -> {
            consumer.wakeup();
            reader.join(STOP_TIMEOUT.toMillis());
        };
        return inbox;
    }

    /** Everything received so far, in arrival order (per partition, for Kafka). */
    @Override
    public List<ReceivedMessage> get() {
        return List.copyOf(received);
    }

    /** Stops consuming; what was received stays readable. */
    @Override
    public void close() {
        try {
            stop.close();
        } catch (Exception e) {
            log.debug("stopping the inbox of {} failed", source, e);
        }
    }

    @Override
    public String toString() {
        return "BrokerInbox[" + source + ", " + received.size() + " received]";
    }
}
