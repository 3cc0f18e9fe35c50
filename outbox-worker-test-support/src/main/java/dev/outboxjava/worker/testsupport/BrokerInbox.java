package dev.outboxjava.worker.testsupport;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/** Consumes a test queue, remembering the distinct message ids (= event ids) and the total deliveries. */
public final class BrokerInbox implements AutoCloseable {

    private final Connection connection;
    private final Set<String> ids = ConcurrentHashMap.newKeySet();
    private final AtomicLong deliveries = new AtomicLong();
    private final List<String> bodies = java.util.Collections.synchronizedList(new java.util.ArrayList<>());

    public BrokerInbox(ConnectionFactory factory, String queue) throws IOException, TimeoutException {
        this.connection = factory.newConnection("outbox-worker-it-consumer");
        Channel channel = connection.createChannel();
        channel.basicQos(2000);
        channel.basicConsume(queue, true, new DefaultConsumer(channel) {
            @Override
            public void handleDelivery(
                    String consumerTag, Envelope envelope, AMQP.BasicProperties properties, byte[] body) {
                deliveries.incrementAndGet();
                bodies.add(new String(body, java.nio.charset.StandardCharsets.UTF_8));
                if (properties.getMessageId() != null) {
                    ids.add(properties.getMessageId());
                }
            }
        });
    }

    public int distinct() {
        return ids.size();
    }

    public long deliveries() {
        return deliveries.get();
    }

    /** Every payload in arrival order (duplicates included). */
    public List<String> bodies() {
        synchronized (bodies) {
            return List.copyOf(bodies);
        }
    }

    public Set<String> ids() {
        return Set.copyOf(ids);
    }

    @Override
    public void close() throws IOException {
        connection.close();
    }
}
