package dev.outboxjava.rabbitmq.internal;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.AlreadyClosedException;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConfirmListener;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.Return;
import com.rabbitmq.client.ShutdownSignalException;
import dev.outboxjava.core.OutboxEvent;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * A channel in publisher-confirm mode that tracks every unconfirmed message by delivery tag and
 * tells the message's {@link BatchPublication} what became of it: acked, nacked, returned as
 * unroutable, or lost when the channel closed. One batch at a time uses a channel, so the events of
 * a batch reach the broker in batch order.
 */
public final class ConfirmingChannel {

    private final Channel channel;
    private final ConcurrentSkipListMap<Long, Pending> unconfirmed = new ConcurrentSkipListMap<>();
    private volatile BatchPublication current;
    private volatile ShutdownSignalException closedBy;

    private record Pending(BatchPublication publication, int index) {
    }

    private ConfirmingChannel(Channel channel) {
        this.channel = channel;
    }

    /** Opens a channel on {@code connection} and turns on publisher confirms. */
    public static ConfirmingChannel open(Connection connection) throws IOException {
        Channel channel = connection.createChannel();
        if (channel == null) {
            throw new IOException("the connection has no free channel number (channel_max reached)");
        }
        ConfirmingChannel confirming = new ConfirmingChannel(channel);
        channel.addShutdownListener(confirming::onShutdown);
        channel.addConfirmListener(new ConfirmListener() {
            @Override
            public void handleAck(long deliveryTag, boolean multiple) {
                confirming.onConfirm(deliveryTag, multiple, true);
            }

            @Override
            public void handleNack(long deliveryTag, boolean multiple) {
                confirming.onConfirm(deliveryTag, multiple, false);
            }
        });
        channel.addReturnListener(confirming::onReturn);
        channel.confirmSelect();
        return confirming;
    }

    /**
     * Publishes the events at {@code indices} of {@code publication}, in order, as mandatory
     * persistent messages, stopping early when the channel fails or the deadline passes.
     *
     * @return the indices that were not handed to the broker (in order)
     */
    public List<Integer> send(BatchPublication publication, List<Integer> indices, long deadlineNanos) {
        current = publication;
        for (int i = 0; i < indices.size(); i++) {
            int index = indices.get(i);
            if (publication.isFinished() || System.nanoTime() - deadlineNanos > 0) {
                return indices.subList(i, indices.size());
            }
            OutboxEvent event = publication.event(index);
            Optional<String> unencodable = AmqpMessages.encodingProblem(event);
            if (unencodable.isPresent()) {
                publication.fail(index, unencodable.get(), false);
                continue;
            }
            AMQP.BasicProperties properties = AmqpMessages.propertiesOf(event);
            byte[] body = event.payload();
            long tag = channel.getNextPublishSeqNo();
            publication.sent(index);
            unconfirmed.put(tag, new Pending(publication, index));
            try {
                channel.basicPublish(event.destination(), event.routingKey(), true, properties, body);
            } catch (IllegalArgumentException e) {
                // Not encodable after all; the client has already counted a sequence number for
                // it, so this channel's confirms would be misattributed from here on: drop it.
                if (unconfirmed.remove(tag) != null) {
                    publication.notSent(index);
                }
                publication.fail(index, "cannot be encoded as an AMQP message: " + e.getMessage(), false);
                abort();
                return indices.subList(i + 1, indices.size());
            } catch (IOException | AlreadyClosedException e) {
                // Not written: the channel or the connection is gone. Whatever was written before
                // is collected by the shutdown listener once the channel is closed.
                if (unconfirmed.remove(tag) != null) {
                    publication.notSent(index);
                }
                abort();
                return indices.subList(i, indices.size());
            }
        }
        return List.of();
    }

    private void onConfirm(long deliveryTag, boolean multiple, boolean ack) {
        if (multiple) {
            ConcurrentNavigableMap<Long, Pending> upTo = unconfirmed.headMap(deliveryTag, true);
            for (Long tag : upTo.keySet()) {
                resolve(unconfirmed.remove(tag), ack);
            }
        } else {
            resolve(unconfirmed.remove(deliveryTag), ack);
        }
    }

    private static void resolve(Pending pending, boolean ack) {
        if (pending == null) {
            return;
        }
        if (ack) {
            pending.publication.acked(pending.index);
        } else {
            pending.publication.nacked(pending.index);
        }
    }

    private void onReturn(Return returned) {
        BatchPublication publication = current;
        String messageId = returned.getProperties().getMessageId();
        if (publication == null || messageId == null) {
            return;
        }
        UUID eventId;
        try {
            eventId = UUID.fromString(messageId);
        } catch (IllegalArgumentException e) {
            return;
        }
        publication.returned(eventId, "unroutable: exchange '" + returned.getExchange() + "' has no queue bound for "
                + "routing key '" + returned.getRoutingKey() + "' (" + returned.getReplyCode() + " "
                + returned.getReplyText() + "); retryable, as a binding may appear later");
    }

    private void onShutdown(ShutdownSignalException cause) {
        closedBy = cause;
        for (Map.Entry<Long, Pending> entry : new ArrayList<>(unconfirmed.entrySet())) {
            Pending pending = unconfirmed.remove(entry.getKey());
            if (pending != null) {
                pending.publication.lost(pending.index);
            }
        }
    }

    /** Why the channel closed, once it has. */
    public Optional<ShutdownSignalException> closedBy() {
        return Optional.ofNullable(closedBy);
    }

    /** Never closed and with nothing left unconfirmed: safe to hand to the next batch. */
    public boolean isReusable() {
        // a channel that was ever closed is not reused, even if the client's recovery reopened it
        return closedBy == null && channel.isOpen() && unconfirmed.isEmpty();
    }

    /** Closes the channel without waiting; unconfirmed messages are reported lost. */
    public void abort() {
        try {
            channel.abort();
        } catch (IOException | RuntimeException e) {
            // already closed
        }
        if (!unconfirmed.isEmpty()) {
            // abort() on a channel whose connection is gone may not run the listeners again
            onShutdown(closedBy != null ? closedBy
                    : new ShutdownSignalException(false, true, null, channel));
        }
    }
}
