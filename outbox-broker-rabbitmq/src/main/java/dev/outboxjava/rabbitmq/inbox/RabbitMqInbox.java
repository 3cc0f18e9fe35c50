package dev.outboxjava.rabbitmq.inbox;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.DeliverCallback;
import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.LongString;
import dev.outboxjava.core.inbox.Inbox;
import dev.outboxjava.core.inbox.InboxKey;
import dev.outboxjava.core.inbox.InboxResult;
import dev.outboxjava.core.inbox.InboxWork;
import dev.outboxjava.core.inbox.UnidentifiableMessageException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Runs the work for a received RabbitMQ message through an {@link Inbox}, keyed by the message id —
 * the AMQP {@code message_id} property, or else the {@value #CLOUD_EVENTS_ID_HEADER} header; the
 * outbox's RabbitMQ publisher sets both to the event id — and acknowledges the delivery only after
 * the inbox committed.
 *
 * <pre>{@code
 * RabbitMqInbox<Connection> inbox = RabbitMqInbox.of(postgresInbox, "shipping.order-placed");
 * channel.basicQos(50);
 * channel.basicConsume("shipping", false,                        // manual acknowledgements
 *         inbox.deliverCallback(channel, (connection, delivery) -> createShipment(connection, delivery.getBody())),
 *         consumerTag -> { });
 * }</pre>
 *
 * <p>{@link #handle} decides the acknowledgement:
 * <ul>
 *   <li>new message: the work runs and commits with the id, then {@code basicAck} —
 *       {@link DeliveryOutcome#PROCESSED};</li>
 *   <li>already processed (a republished event, or a redelivery after a crash before the ack):
 *       {@code basicAck} without running the work — {@link DeliveryOutcome#DUPLICATE};</li>
 *   <li>the work or the inbox failed: everything rolled back, {@code basicNack} with requeue — the
 *       broker delivers it again ({@link DeliveryOutcome#REQUEUED}). A message that always fails
 *       comes back at once and forever: bound it with a quorum queue's {@code x-delivery-limit} and
 *       a dead-letter exchange;</li>
 *   <li>no usable id: it cannot be deduplicated, and requeueing would not help, so
 *       {@code basicNack} without requeue — dead-lettered when the queue has a dead-letter exchange,
 *       dropped otherwise — and logged at ERROR ({@link DeliveryOutcome#REJECTED}).</li>
 * </ul>
 * If the acknowledgement itself fails after the commit (the channel closed), the broker redelivers
 * the message and the inbox recognises it. While the work runs, the MDC holds {@code event_id} and
 * {@code event_type} (the AMQP {@code type} property). Thread-safe; use a channel from one thread at
 * a time, as the RabbitMQ client requires.
 *
 * @param <T> the inbox's transaction handle
 */
public final class RabbitMqInbox<T> {

    /** The CloudEvents id header of the AMQP protocol binding. */
    public static final String CLOUD_EVENTS_ID_HEADER = "cloudEvents:id";

    /** The consumer's work for one delivery, in the inbox's transaction. */
    @FunctionalInterface
    public interface DeliveryHandler<T> {
        /**
         * Applies the delivery's effect through {@code transaction}; do not commit, roll back or close
         * it. Throwing anything rolls the effect back and has the message requeued.
         */
        void handle(T transaction, Delivery delivery) throws Exception;
    }

    /** What {@link #handle} did with a delivery. */
    public enum DeliveryOutcome {
        /** The work ran and committed; the delivery was acknowledged. */
        PROCESSED,
        /** Processed before; the work did not run; the delivery was acknowledged. */
        DUPLICATE,
        /** The work or the inbox failed; rolled back; the delivery was rejected with requeue. */
        REQUEUED,
        /** The message has no usable id; the delivery was rejected without requeue. */
        REJECTED
    }

    private static final Logger log = LoggerFactory.getLogger(RabbitMqInbox.class);

    private final Inbox<T> inbox;
    private final String consumerName;

    private RabbitMqInbox(Inbox<T> inbox, String consumerName) {
        this.inbox = inbox;
        this.consumerName = consumerName;
    }

    /**
     * @param inbox        where processed ids are recorded
     * @param consumerName a stable name of this handler, e.g. {@code shipping.order-placed}
     * @throws dev.outboxjava.core.InvalidConfigurationException when the name is blank or too long
     */
    public static <T> RabbitMqInbox<T> of(Inbox<T> inbox, String consumerName) {
        Objects.requireNonNull(inbox, "inbox");
        return new RabbitMqInbox<>(inbox, InboxKey.requireValidConsumerName(consumerName));
    }

    /** The consumer name messages are deduplicated under. */
    public String consumerName() {
        return consumerName;
    }

    /**
     * The message id: the {@code message_id} property, or else the {@value #CLOUD_EVENTS_ID_HEADER}
     * header (a string, or bytes as UTF-8); empty when neither is set or both are blank.
     */
    public static Optional<String> messageId(AMQP.BasicProperties properties) {
        Objects.requireNonNull(properties, "properties");
        String messageId = properties.getMessageId();
        if (messageId != null && !messageId.isBlank()) {
            return Optional.of(messageId);
        }
        Map<String, Object> headers = properties.getHeaders();
        Object header = headers == null ? null : headers.get(CLOUD_EVENTS_ID_HEADER);
        String fromHeader = header instanceof byte[] bytes
                ? new String(bytes, StandardCharsets.UTF_8)
                : header instanceof LongString || header instanceof String ? header.toString() : null;
        return fromHeader == null || fromHeader.isBlank() ? Optional.empty() : Optional.of(fromHeader);
    }

    /**
     * Runs {@code work} for the message unless this consumer already processed it, without
     * acknowledging anything; see {@link Inbox#process}. Acknowledge only after this returns.
     *
     * @throws X                              whatever {@code work} threw, after rollback
     * @throws UnidentifiableMessageException when the message has no usable id
     */
    public <X extends Exception> InboxResult process(AMQP.BasicProperties properties, InboxWork<T, X> work) throws X {
        Objects.requireNonNull(work, "work");
        String id = messageId(properties)
                .orElseThrow(() -> new UnidentifiableMessageException("the message has "
                        + "neither a message_id nor a " + CLOUD_EVENTS_ID_HEADER + " header, so consumer '"
                        + consumerName
                        + "' cannot deduplicate it (the outbox's RabbitMQ publisher sets both)"));
        MDC.put("event_id", id);
        if (properties.getType() != null) {
            MDC.put("event_type", properties.getType());
        }
        try {
            return inbox.process(consumerName, id, work);
        } finally {
            MDC.remove("event_id");
            MDC.remove("event_type");
        }
    }

    /**
     * Processes a delivery through the inbox and acknowledges it on {@code channel} accordingly (see
     * the class description). Never throws for a failed work: the outcome says what happened.
     */
    public DeliveryOutcome handle(Channel channel, Delivery delivery, DeliveryHandler<T> handler) {
        Objects.requireNonNull(channel, "channel");
        Objects.requireNonNull(delivery, "delivery");
        Objects.requireNonNull(handler, "handler");
        long tag = delivery.getEnvelope().getDeliveryTag();
        InboxResult result;
        try {
            result = process(delivery.getProperties(), transaction -> handler.handle(transaction, delivery));
        } catch (UnidentifiableMessageException e) {
            log.error(
                    "inbox consumer '{}': rejecting a message from exchange '{}' (routing key '{}') without "
                            + "requeue: {}",
                    consumerName,
                    delivery.getEnvelope().getExchange(),
                    delivery.getEnvelope().getRoutingKey(),
                    e.getMessage());
            nack(channel, tag, false);
            return DeliveryOutcome.REJECTED;
        } catch (Exception e) {
            log.warn(
                    "inbox consumer '{}': message {} failed and is requeued: {}",
                    consumerName,
                    messageId(delivery.getProperties()).orElse("?"),
                    e.toString());
            nack(channel, tag, true);
            return DeliveryOutcome.REQUEUED;
        }
        try {
            channel.basicAck(tag, false);
        } catch (IOException | RuntimeException e) {
            log.warn(
                    "inbox consumer '{}': message {} committed but its acknowledgement failed; the broker will "
                            + "deliver it again and the inbox will skip it: {}",
                    consumerName,
                    messageId(delivery.getProperties()).orElse("?"),
                    e.toString());
        }
        return result.processed() ? DeliveryOutcome.PROCESSED : DeliveryOutcome.DUPLICATE;
    }

    /**
     * A callback for {@code channel.basicConsume(queue, false, callback, cancelCallback)} that runs
     * every delivery through {@link #handle}. Consume with {@code autoAck = false}.
     */
    public DeliverCallback deliverCallback(Channel channel, DeliveryHandler<T> handler) {
        Objects.requireNonNull(channel, "channel");
        Objects.requireNonNull(handler, "handler");
        return (consumerTag, delivery) -> handle(channel, delivery, handler);
    }

    private void nack(Channel channel, long tag, boolean requeue) {
        try {
            channel.basicNack(tag, false, requeue);
        } catch (IOException | RuntimeException e) {
            log.warn(
                    "inbox consumer '{}': could not reject delivery {} (the broker redelivers it when the channel "
                            + "closes): {}",
                    consumerName,
                    tag,
                    e.toString());
        }
    }
}
