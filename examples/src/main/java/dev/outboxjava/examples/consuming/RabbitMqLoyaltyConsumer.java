package dev.outboxjava.examples.consuming;

import com.rabbitmq.client.Channel;
import dev.outboxjava.core.inbox.Inbox;
import dev.outboxjava.examples.orders.OrderEvents;
import dev.outboxjava.rabbitmq.inbox.RabbitMqInbox;
import dev.outboxjava.rabbitmq.inbox.RabbitMqInbox.DeliveryOutcome;
import java.io.IOException;
import java.sql.Connection;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Recipe: effectively-once consuming from RabbitMQ. Each {@code order.placed} message credits
 * loyalty points through the PostgreSQL inbox — the credit and the message id commit in ONE
 * database transaction — and the delivery is acknowledged manually, only after that commit.
 *
 * <p>What each failure does:
 * <ul>
 *   <li>the consumer dies after the commit and before its acknowledgement reaches the broker: the
 *       broker delivers the message again when the channel closes; the inbox finds its id, and the
 *       redelivery is acknowledged without crediting twice;</li>
 *   <li>the relay published an event twice: the second message carries the same {@code message_id}
 *       and is skipped the same way;</li>
 *   <li>the credit fails: the transaction rolls back with the id unrecorded, and the delivery is
 *       rejected with requeue, so the broker delivers it again.</li>
 * </ul>
 * The acknowledgement logic is the library's {@link RabbitMqInbox#handle}; this class only wires it
 * and counts what happened.
 */
public final class RabbitMqLoyaltyConsumer {

    /** The inbox's name for this handler: stable across restarts and deployments. */
    public static final String CONSUMER_NAME = "loyalty.order-placed";

    private final RabbitMqInbox<Connection> inbox;
    private final LoyaltyPoints points;
    private final Map<DeliveryOutcome, AtomicInteger> outcomes = new EnumMap<>(DeliveryOutcome.class);

    /**
     * @param inbox  the inbox on the database that holds {@code points}
     * @param points the business table the messages credit
     */
    public RabbitMqLoyaltyConsumer(Inbox<Connection> inbox, LoyaltyPoints points) {
        this.inbox = RabbitMqInbox.of(inbox, CONSUMER_NAME);
        this.points = Objects.requireNonNull(points, "points");
        for (DeliveryOutcome outcome : DeliveryOutcome.values()) {
            outcomes.put(outcome, new AtomicInteger());
        }
    }

    /**
     * Starts consuming {@code queue} on {@code channel} with manual acknowledgements and at most
     * {@code prefetch} unacknowledged deliveries; returns the consumer tag. Deliveries are handled
     * on the connection's dispatch thread, one at a time per channel.
     */
    public String start(Channel channel, String queue, int prefetch) throws IOException {
        // tag::rabbitmq-inbox[]
        channel.basicQos(prefetch);
        return channel.basicConsume(
                queue,
                false, // autoAck = false: ack after the commit
                (consumerTag, delivery) -> outcomes.get(inbox.handle(
                                channel,
                                delivery,
                                (connection, d) -> points.credit(connection, OrderEvents.readPlaced(d.getBody()))))
                        .incrementAndGet(),
                consumerTag -> {});
        // end::rabbitmq-inbox[]
    }

    /** How many deliveries ended with {@code outcome} so far. */
    public int count(DeliveryOutcome outcome) {
        return outcomes.get(outcome).get();
    }

    /** Deliveries handled so far, whatever their outcome. */
    public int handled() {
        return outcomes.values().stream().mapToInt(AtomicInteger::get).sum();
    }
}
