package dev.outboxjava.rabbitmq.internal;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.ShutdownSignalException;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.PublishOutcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.IntStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Publishes one batch on one channel at a time and turns what the broker said into one outcome per
 * event.
 *
 * <p>Before the first message, the batch's exchanges are checked on a channel of their own
 * ({@link ExchangeCheck}): events for an exchange that does not exist fail as unroutable without
 * being sent, so the 404 that would close the batch's channel never happens and no neighbour's
 * confirm is lost with it. Should the broker still close the channel with a 404 (an exchange
 * deleted after it was checked), the events it had not confirmed are sorted out: the destinations
 * are checked again, events for a missing exchange fail as unroutable, and the rest are published
 * again, in batch order, on a fresh channel. An event whose key already failed earlier in the batch
 * is held back rather than overtaking it ({@link dev.outboxjava.core.port.KeyHoldBack}). Any other channel or connection loss fails the
 * unconfirmed events as retryable.
 */
public final class BatchSender {

    private static final Logger log = LoggerFactory.getLogger(BatchSender.class);
    private static final int NOT_FOUND = 404;

    private final ChannelPool channels;
    private final ConnectionManager connections;
    private final String virtualHost;
    private final ExchangeCheck exchanges;

    public BatchSender(ChannelPool channels, ConnectionManager connections, String virtualHost) {
        this.channels = channels;
        this.connections = connections;
        this.virtualHost = virtualHost;
        this.exchanges = new ExchangeCheck(connections);
    }

    /**
     * Publishes the events of {@code publication} and waits for their confirms until
     * {@code deadlineNanos} ({@link System#nanoTime()}), then finishes the publication.
     *
     * @param wait the wait the deadline stands for, for the reason of events not confirmed in time
     */
    public List<PublishOutcome> send(BatchPublication publication, long deadlineNanos, Duration wait) {
        String timedOut = timeoutReason(wait);
        List<Integer> toSend = routable(publication);
        int roundsLeft = distinctDestinations(publication) + 1;
        try {
            while (!toSend.isEmpty() && !publication.isFinished()) {
                if (roundsLeft-- == 0) {
                    failAll(publication, toSend, "RabbitMQ kept closing the channel; gave up for this batch");
                    break;
                }
                ConfirmingChannel channel;
                try {
                    channel = channels.borrow();
                } catch (BrokerUnavailableException e) {
                    failAll(publication, toSend, e.getMessage());
                    break;
                }
                List<Integer> notSent = channel.send(publication, toSend, deadlineNanos);
                if (!publication.awaitRound(deadlineNanos)) {
                    channel.abort(); // late confirms must not be mistaken for the next batch's
                    break;
                }
                List<Integer> lost = publication.takeLost();
                if (channel.closedBy().isEmpty() && lost.isEmpty()) {
                    // all sent events settled; anything not sent ran out of time
                    channels.giveBack(channel);
                    break;
                }
                channel.abort();
                toSend = sortOut(publication, merge(lost, notSent), channel.closedBy());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return publication.finish("interrupted while waiting for RabbitMQ publisher confirms");
        }
        List<PublishOutcome> outcomes = publication.finish(timedOut);
        logFailures(publication, outcomes);
        return outcomes;
    }

    /** The reason given to events that were not confirmed within {@code wait}. */
    public static String timeoutReason(Duration wait) {
        return "RabbitMQ did not confirm the event within " + wait;
    }

    /**
     * The batch's indices worth sending: not those for an exchange that does not exist (they fail as
     * unroutable), nor those held back behind such an event of their key.
     */
    private List<Integer> routable(BatchPublication publication) {
        Set<String> destinations = new LinkedHashSet<>();
        for (int i = 0; i < publication.size(); i++) {
            destinations.add(publication.event(i).destination());
        }
        Set<String> missing = exchanges.missing(destinations);
        if (missing.isEmpty()) {
            return IntStream.range(0, publication.size()).boxed().toList();
        }
        List<Integer> routable = new ArrayList<>(publication.size());
        for (int index = 0; index < publication.size(); index++) {
            OutboxEvent event = publication.event(index);
            if (publication.holdBackIfKeyFailed(index)) {
                continue;
            }
            if (missing.contains(event.destination())) {
                publication.unroutable(index, missingExchange(event.destination(), "passive declare: 404 NOT_FOUND"));
            } else {
                routable.add(index);
            }
        }
        return routable;
    }

    private String missingExchange(String exchange, String brokerSaid) {
        return "exchange '" + exchange + "' does not exist in virtual host '" + virtualHost + "' (RabbitMQ: "
                + brokerSaid + "); declare it, or fix the event's destination";
    }

    /**
     * Decides, after the channel closed, which unconfirmed or unsent events go out again: after a 404
     * or after we dropped the channel ourselves, all but those for a missing exchange and those held
     * back behind a failed event of their key; after anything else, none.
     */
    private List<Integer> sortOut(
            BatchPublication publication, List<Integer> unresolved, Optional<ShutdownSignalException> cause) {
        Optional<AMQP.Channel.Close> close = cause.filter(signal -> !signal.isHardError())
                .map(ShutdownSignalException::getReason)
                .filter(AMQP.Channel.Close.class::isInstance)
                .map(AMQP.Channel.Close.class::cast);
        boolean notFound = close.isPresent() && close.get().getReplyCode() == NOT_FOUND;
        // we dropped the channel ourselves (an event that could not be encoded): the rest go out again
        boolean droppedByUs =
                cause.map(ShutdownSignalException::isInitiatedByApplication).orElse(true) && connections.isOpen();
        if (!notFound && !droppedByUs) {
            String why = cause.map(ConnectionManager::describe).orElse("the channel failed");
            boolean connectionLost =
                    cause.map(ShutdownSignalException::isHardError).orElse(false) || !connections.isOpen();
            failAll(
                    publication,
                    unresolved,
                    (connectionLost ? "connection to RabbitMQ lost" : "RabbitMQ closed the channel")
                            + " before confirming the event: " + why);
            return List.of();
        }
        Set<String> missing = Set.of();
        if (notFound) {
            Set<String> destinations = new LinkedHashSet<>();
            unresolved.forEach(
                    index -> destinations.add(publication.event(index).destination()));
            destinations.forEach(exchanges::forget);
            missing = exchanges.missing(destinations);
        }
        String brokerText = close.map(AMQP.Channel.Close::getReplyText).orElse("");
        List<Integer> again = new ArrayList<>();
        for (int index : unresolved) {
            OutboxEvent event = publication.event(index);
            if (publication.holdBackIfKeyFailed(index)) {
                continue;
            }
            if (missing.contains(event.destination())) {
                publication.unroutable(index, missingExchange(event.destination(), "404 " + brokerText));
            } else {
                again.add(index);
            }
        }
        return again;
    }

    private static void failAll(BatchPublication publication, List<Integer> indices, String reason) {
        indices.forEach(index -> publication.fail(index, reason, true));
    }

    private static List<Integer> merge(List<Integer> lost, List<Integer> notSent) {
        if (notSent.isEmpty()) {
            return lost;
        }
        List<Integer> merged = new ArrayList<>(lost);
        merged.addAll(notSent);
        merged.sort(null);
        return merged;
    }

    private static int distinctDestinations(BatchPublication publication) {
        Set<String> destinations = new HashSet<>();
        for (int i = 0; i < publication.size(); i++) {
            destinations.add(publication.event(i).destination());
        }
        return destinations.size();
    }

    /** One debug line per failed event, with the event in the MDC; a summary at most once per batch. */
    private static void logFailures(BatchPublication publication, List<PublishOutcome> outcomes) {
        Map<String, Integer> reasons = new HashMap<>();
        for (int i = 0; i < outcomes.size(); i++) {
            if (outcomes.get(i) instanceof PublishOutcome.Failed failed) {
                reasons.merge(failed.reason(), 1, Integer::sum);
                if (log.isDebugEnabled()) {
                    OutboxEvent event = publication.event(i);
                    MDC.put("event_id", event.id().toString());
                    MDC.put("event_type", event.type());
                    MDC.put("key", event.keyOrEmpty());
                    try {
                        log.debug("event {} not published: {}", event.id(), failed.reason());
                    } finally {
                        MDC.remove("event_id");
                        MDC.remove("event_type");
                        MDC.remove("key");
                    }
                }
            }
        }
        if (!reasons.isEmpty()) {
            log.debug(
                    "{} of {} events not published: {}",
                    reasons.values().stream().mapToInt(Integer::intValue).sum(),
                    outcomes.size(),
                    reasons.keySet());
        }
    }
}
