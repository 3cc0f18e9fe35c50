package dev.outboxjava.rabbitmq.internal;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ShutdownSignalException;
import java.io.IOException;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Finds out whether exchanges exist before a batch is published to them, each on a channel of its
 * own, and remembers the ones that do.
 *
 * <p>Publishing to an exchange that does not exist makes RabbitMQ close the channel (404), and with
 * it the confirms of every other message of the batch still in flight on that channel: their fate is
 * then unknown, and publishing them again duplicates those the broker had already routed. A passive
 * declare on a separate channel costs one round trip per exchange the first time it is seen; an
 * exchange found missing is asked about again with the next batch that names it, so it is used as
 * soon as it is declared. An exchange that disappears after it was remembered still yields a 404 on
 * the batch's channel; {@link #forget} then drops it from memory.
 */
final class ExchangeCheck {

    private static final int NOT_FOUND = 404;

    private final ConnectionManager connections;
    private final Set<String> existing = ConcurrentHashMap.newKeySet();

    public ExchangeCheck(ConnectionManager connections) {
        this.connections = connections;
    }

    /**
     * The exchanges among {@code exchanges} that the broker says do not exist. An exchange that
     * cannot be checked (no connection, no permission) is not reported: its events are published and
     * the broker's answer decides.
     */
    public Set<String> missing(Collection<String> exchanges) {
        Set<String> missing = new LinkedHashSet<>();
        for (String exchange : exchanges) {
            // the default exchange always exists, and passive declares of it are refused
            if (exchange.isEmpty() || existing.contains(exchange)) {
                continue;
            }
            switch (probe(exchange)) {
                case EXISTS -> existing.add(exchange);
                case MISSING -> missing.add(exchange);
                case UNKNOWN -> {}
            }
        }
        return missing;
    }

    /** Forgets that {@code exchange} existed (the broker just said it does not). */
    public void forget(String exchange) {
        existing.remove(exchange);
    }

    private enum Answer {
        EXISTS,
        MISSING,
        UNKNOWN
    }

    private Answer probe(String exchange) {
        Channel probe;
        try {
            probe = connections.connection().createChannel();
        } catch (BrokerUnavailableException | IOException | RuntimeException e) {
            return Answer.UNKNOWN;
        }
        if (probe == null) {
            return Answer.UNKNOWN;
        }
        try {
            probe.exchangeDeclarePassive(exchange);
            return Answer.EXISTS;
        } catch (IOException e) {
            return isNotFound(e.getCause()) ? Answer.MISSING : Answer.UNKNOWN;
        } catch (RuntimeException e) {
            return Answer.UNKNOWN;
        } finally {
            try {
                probe.abort(); // also unregisters it from connection recovery
            } catch (IOException | RuntimeException e) {
                // closed by the broker's 404 already
            }
        }
    }

    private static boolean isNotFound(Throwable cause) {
        return cause instanceof ShutdownSignalException signal
                && !signal.isHardError()
                && signal.getReason() instanceof AMQP.Channel.Close close
                && close.getReplyCode() == NOT_FOUND;
    }
}
