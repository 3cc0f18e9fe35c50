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
import java.util.BitSet;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * A channel in publisher-confirm mode that tracks every unconfirmed message by delivery tag and
 * tells the message's {@link BatchPublication} what became of it: acked, nacked, returned as
 * unroutable, or lost when the channel closed. One batch at a time uses a channel, so the events of
 * a batch reach the broker in batch order.
 *
 * <p>The messages of one round (one {@link #send} call) get consecutive delivery tags: the k-th
 * message handed to the broker has tag {@code firstTag + k}. So a confirm finds its event by offset
 * in an array, with no per-message map entry, and a {@code multiple} confirm settles a range. A
 * channel whose tag sequence could be upset (a publish that failed half-way) is aborted, never
 * reused.
 */
final class ConfirmingChannel {

    private final Channel channel;
    /** Guards the round below; taken by the publishing thread and the connection's listener thread. */
    private final Object lock = new Object();

    private volatile BatchPublication current;
    private volatile ShutdownSignalException closedBy;
    // the round in progress (or the last one)
    private long firstTag;
    private int[] indexAt = new int[0];
    /** Messages of this round handed to {@code basicPublish}: offsets {@code 0..published-1}. */
    private int published;
    /** Every offset below this one has an outcome. */
    private int settledBelow;
    /** Offsets at or above {@link #settledBelow} settled out of order (single confirms). */
    private final BitSet settledAbove = new BitSet();

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
        synchronized (lock) {
            current = publication;
            firstTag = channel.getNextPublishSeqNo();
            if (indexAt.length < indices.size()) {
                indexAt = new int[indices.size()];
            }
            published = 0;
            settledBelow = 0;
            settledAbove.clear();
        }
        for (int i = 0; i < indices.size(); i++) {
            int index = indices.get(i);
            if (publication.isFinished() || System.nanoTime() - deadlineNanos > 0) {
                return indices.subList(i, indices.size());
            }
            if (publication.holdBackIfKeyFailed(index)) {
                continue;
            }
            OutboxEvent event = publication.event(index);
            Optional<String> unencodable = AmqpMessages.encodingProblem(event);
            if (unencodable.isPresent()) {
                publication.fail(index, unencodable.get(), false);
                continue;
            }
            AMQP.BasicProperties properties = AmqpMessages.propertiesOf(event);
            publication.sent(index);
            int offset;
            synchronized (lock) {
                // recorded before the publish: its confirm may arrive before basicPublish returns
                offset = published++;
                indexAt[offset] = index;
            }
            try {
                channel.basicPublish(event.destination(), event.routingKey(), true, properties, event.payload());
            } catch (IllegalArgumentException e) {
                // Not encodable after all; the client has already counted a sequence number for
                // it, so this channel's confirms would be misattributed from here on: drop it.
                unsend(publication, offset, index);
                publication.fail(index, "cannot be encoded as an AMQP message: " + e.getMessage(), false);
                abort();
                return indices.subList(i + 1, indices.size());
            } catch (IOException | AlreadyClosedException e) {
                // Not written: the channel or the connection is gone. Whatever was written before
                // is collected by the shutdown listener once the channel is closed.
                boolean takenBack = unsend(publication, offset, index);
                abort();
                // an event the shutdown listener already called lost is retried from that list
                return indices.subList(takenBack ? i : i + 1, indices.size());
            }
        }
        return List.of();
    }

    /**
     * A publish that threw: takes its event back as not sent, unless the shutdown listener already
     * reported it lost.
     *
     * @return whether it was taken back
     */
    private boolean unsend(BatchPublication publication, int offset, int index) {
        synchronized (lock) {
            if (isSettled(offset)) {
                return false;
            }
            markSettled(offset);
        }
        publication.notSent(index);
        return true;
    }

    private void onConfirm(long deliveryTag, boolean multiple, boolean ack) {
        synchronized (lock) {
            long offset = deliveryTag - firstTag;
            if (offset < 0 || offset >= published) {
                return; // not of this round (cannot happen on a channel that is only reused when settled)
            }
            int last = (int) offset;
            if (multiple) {
                for (int o = settledBelow; o <= last; o++) {
                    if (!settledAbove.get(o)) {
                        resolve(indexAt[o], ack);
                    }
                }
                if (last >= settledBelow) {
                    settledAbove.clear(settledBelow, last + 1);
                    settledBelow = last + 1;
                    advance();
                }
            } else if (!isSettled(last)) {
                markSettled(last);
                resolve(indexAt[last], ack);
            }
        }
    }

    private boolean isSettled(int offset) {
        return offset < settledBelow || settledAbove.get(offset);
    }

    private void markSettled(int offset) {
        settledAbove.set(offset);
        advance();
    }

    /** Moves {@link #settledBelow} past the offsets settled out of order. */
    private void advance() {
        int next = settledAbove.nextClearBit(settledBelow);
        if (next > settledBelow) {
            settledAbove.clear(settledBelow, next);
            settledBelow = next;
        }
    }

    private void resolve(int index, boolean ack) {
        if (ack) {
            current.acked(index);
        } else {
            current.nacked(index);
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
        publication.returned(
                eventId,
                "unroutable: exchange '" + returned.getExchange() + "' has no queue bound for "
                        + "routing key '" + returned.getRoutingKey() + "' (" + returned.getReplyCode() + " "
                        + returned.getReplyText() + "); retryable, as a binding may appear later");
    }

    private void onShutdown(ShutdownSignalException cause) {
        closedBy = cause;
        synchronized (lock) {
            for (int o = settledBelow; o < published; o++) {
                if (!settledAbove.get(o)) {
                    current.lost(indexAt[o]);
                }
            }
            settledAbove.clear();
            settledBelow = published;
        }
    }

    /** Why the channel closed, once it has. */
    public Optional<ShutdownSignalException> closedBy() {
        return Optional.ofNullable(closedBy);
    }

    /** Never closed and with nothing left unconfirmed: safe to hand to the next batch. */
    public boolean isReusable() {
        // a channel that was ever closed is not reused, even if the client's recovery reopened it
        return closedBy == null && channel.isOpen() && !hasUnconfirmed();
    }

    private boolean hasUnconfirmed() {
        synchronized (lock) {
            return settledBelow < published;
        }
    }

    /** Closes the channel without waiting; unconfirmed messages are reported lost. */
    public void abort() {
        try {
            channel.abort();
        } catch (IOException | RuntimeException e) {
            // already closed
        }
        if (hasUnconfirmed()) {
            // abort() on a channel whose connection is gone may not run the listeners again
            onShutdown(closedBy != null ? closedBy : new ShutdownSignalException(false, true, null, channel));
        }
    }
}
