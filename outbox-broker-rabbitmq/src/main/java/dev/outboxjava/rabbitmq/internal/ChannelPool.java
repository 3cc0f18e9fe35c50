package dev.outboxjava.rabbitmq.internal;

import java.io.IOException;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Reuses confirm-mode channels between batches. A channel is lent to one batch at a time; one that
 * closed or still has unconfirmed messages is discarded, and the next borrower gets a fresh one.
 */
public final class ChannelPool {

    private final ConnectionManager connections;
    private final ConcurrentLinkedQueue<ConfirmingChannel> idle = new ConcurrentLinkedQueue<>();

    public ChannelPool(ConnectionManager connections) {
        this.connections = connections;
    }

    /** An idle open channel, or a new one. */
    public ConfirmingChannel borrow() throws BrokerUnavailableException {
        ConfirmingChannel channel;
        while ((channel = idle.poll()) != null) {
            if (channel.isReusable()) {
                return channel;
            }
            channel.abort();
        }
        try {
            return ConfirmingChannel.open(connections.connection());
        } catch (IOException | RuntimeException e) {
            throw new BrokerUnavailableException("cannot open a channel to RabbitMQ: " + ConnectionManager.describe(e));
        }
    }

    /** Takes a channel back after a batch; keeps it only if reusable. */
    public void giveBack(ConfirmingChannel channel) {
        if (channel.isReusable()) {
            idle.add(channel);
        } else {
            channel.abort();
        }
    }

    /** Closes every idle channel. */
    public void closeAll() {
        ConfirmingChannel channel;
        while ((channel = idle.poll()) != null) {
            channel.abort();
        }
    }
}
