package dev.outboxjava.examples.shipping;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads events from a RabbitMQ queue with manual acknowledgements: the id in the AMQP
 * {@code message_id}, the type in the {@code cloudEvents:type} header (or the AMQP {@code type}).
 * Deliveries are acknowledged only by {@link #acknowledge()}, after the handler committed.
 */
public final class RabbitMqEventStream implements EventStream {

    private static final Logger log = LoggerFactory.getLogger(RabbitMqEventStream.class);
    private static final int PREFETCH = 1000;
    private static final int MAX_BATCH = 500;

    private record Delivery(long tag, Optional<ReceivedEvent> event) {}

    private final Connection connection;
    private final Channel channel;
    private final LinkedBlockingQueue<Delivery> arrivals = new LinkedBlockingQueue<>();
    private long lastTag;
    private boolean unacknowledged;

    /**
     * @param factory        how to reach the broker
     * @param queue          the queue to consume (declared already, see {@link #declareQueue})
     * @param connectionName client-provided connection name, shown by {@code rabbitmqctl list_connections}
     */
    public RabbitMqEventStream(ConnectionFactory factory, String queue, String connectionName) {
        try {
            this.connection = factory.newConnection(connectionName);
            this.channel = connection.createChannel();
            channel.basicQos(PREFETCH);
            channel.basicConsume(queue, false, new DefaultConsumer(channel) {
                @Override
                public void handleDelivery(
                        String consumerTag, Envelope envelope, AMQP.BasicProperties properties, byte[] body) {
                    arrivals.add(new Delivery(envelope.getDeliveryTag(), toEvent(properties, body)));
                }
            });
        } catch (IOException | TimeoutException e) {
            throw new IllegalStateException(
                    "cannot consume queue '" + queue + "' on " + factory.getHost() + ":" + factory.getPort() + ": " + e,
                    e);
        }
    }

    /**
     * Declares a durable topic exchange, a durable queue and binds them with {@code bindingKey}
     * (e.g. {@code order.#}); do it before the relay publishes, or its mandatory messages are unroutable.
     */
    public static void declareQueue(ConnectionFactory factory, String exchange, String queue, String bindingKey) {
        try (Connection admin = factory.newConnection("outbox-examples-declare");
                Channel ch = admin.createChannel()) {
            ch.exchangeDeclare(exchange, BuiltinExchangeType.TOPIC, true);
            ch.queueDeclare(queue, true, false, false, null);
            ch.queueBind(queue, exchange, bindingKey);
        } catch (IOException | TimeoutException e) {
            throw new IllegalStateException(
                    "cannot declare exchange '" + exchange + "' and queue '" + queue + "': " + e, e);
        }
    }

    /** Deletes the queue and the exchange (demo and test clean-up). */
    public static void deleteQueue(ConnectionFactory factory, String exchange, String queue) {
        try (Connection admin = factory.newConnection("outbox-examples-delete");
                Channel ch = admin.createChannel()) {
            ch.queueDelete(queue);
            ch.exchangeDelete(exchange);
        } catch (IOException | TimeoutException e) {
            log.warn("could not delete exchange '{}' and queue '{}': {}", exchange, queue, e.toString());
        }
    }

    @Override
    public List<ReceivedEvent> poll(Duration timeout) {
        List<Delivery> batch = new ArrayList<>();
        try {
            Delivery first = arrivals.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
            if (first == null) {
                return List.of();
            }
            batch.add(first);
            arrivals.drainTo(batch, MAX_BATCH - 1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of();
        }
        List<ReceivedEvent> events = new ArrayList<>();
        for (Delivery delivery : batch) {
            lastTag = Math.max(lastTag, delivery.tag());
            unacknowledged = true;
            delivery.event().ifPresent(events::add);
        }
        return events;
    }

    @Override
    public void acknowledge() {
        if (!unacknowledged) {
            return;
        }
        try {
            channel.basicAck(lastTag, true);
            unacknowledged = false;
        } catch (IOException e) {
            throw new UncheckedIOException("could not acknowledge deliveries up to " + lastTag, e);
        }
    }

    @Override
    public void redeliver() {
        if (!unacknowledged) {
            return;
        }
        try {
            channel.basicNack(lastTag, true, true);
            unacknowledged = false;
        } catch (IOException e) {
            throw new UncheckedIOException("could not return deliveries up to " + lastTag, e);
        }
    }

    @Override
    public void close() {
        try {
            connection.close();
        } catch (IOException | RuntimeException e) {
            log.debug("closing the consumer connection failed", e);
        }
    }

    private static Optional<ReceivedEvent> toEvent(AMQP.BasicProperties properties, byte[] body) {
        Map<String, Object> headers = properties.getHeaders() == null ? Map.of() : properties.getHeaders();
        String id = properties.getMessageId() != null ? properties.getMessageId() : text(headers.get("cloudEvents:id"));
        if (id == null) {
            log.warn("skipping a message without message_id: not an outbox event");
            return Optional.empty();
        }
        String type = text(headers.get("cloudEvents:type"));
        if (type == null) {
            type = properties.getType() == null ? "" : properties.getType();
        }
        return Optional.of(new ReceivedEvent(
                UUID.fromString(id), type, Optional.ofNullable(text(headers.get("cloudEvents:partitionkey"))), body));
    }

    private static String text(Object value) {
        return value == null ? null : value.toString(); // AMQP long strings arrive as LongString
    }
}
