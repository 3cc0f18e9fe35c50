package dev.outboxjava.rabbitmq.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AlreadyClosedException;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConfirmListener;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ShutdownListener;
import com.rabbitmq.client.ShutdownSignalException;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.PublishOutcome;
import java.io.IOException;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The delivery-tag bookkeeping of a channel, against a scripted stand-in for the client's channel. */
class ConfirmingChannelTest {

    /** What the stand-in channel does: numbers publishes like the client, fails the publish numbered {@code failAt}. */
    private static final class ScriptedChannel {
        long nextSeqNo = 1;
        long failAt = -1;
        boolean closeWhenFailing;
        boolean open = true;
        ConfirmListener confirms;
        ShutdownListener shutdown;

        Connection connection() {
            Channel channel = (Channel) Proxy.newProxyInstance(
                    getClass().getClassLoader(),
                    new Class<?>[] {Channel.class},
                    (proxy, method, args) -> switch (method.getName()) {
                        case "addConfirmListener" -> {
                            confirms = (ConfirmListener) args[0];
                            yield null;
                        }
                        case "addShutdownListener" -> {
                            shutdown = (ShutdownListener) args[0];
                            yield null;
                        }
                        case "getNextPublishSeqNo" -> nextSeqNo;
                        case "basicPublish" -> {
                            long seqNo = nextSeqNo++;
                            if (seqNo == failAt && closeWhenFailing) {
                                // the connection's thread saw the channel close first
                                open = false;
                                shutdown.shutdownCompleted(new ShutdownSignalException(true, false, null, proxy));
                                throw new AlreadyClosedException(new ShutdownSignalException(true, false, null, proxy));
                            }
                            if (seqNo == failAt) {
                                throw new IOException("connection reset");
                            }
                            yield null;
                        }
                        case "isOpen" -> open;
                        case "abort" -> {
                            if (open) {
                                open = false;
                                shutdown.shutdownCompleted(new ShutdownSignalException(false, true, null, proxy));
                            }
                            yield null;
                        }
                        case "hashCode" -> System.identityHashCode(proxy);
                        case "equals" -> proxy == args[0];
                        case "toString" -> "scripted channel";
                        default -> null; // addReturnListener, confirmSelect
                    });
            return (Connection) Proxy.newProxyInstance(
                    getClass().getClassLoader(),
                    new Class<?>[] {Connection.class},
                    (proxy, method, args) -> method.getName().equals("createChannel") ? channel : null);
        }
    }

    private final ScriptedChannel scripted = new ScriptedChannel();

    private static BatchPublication batchOf(int size) {
        return new BatchPublication(IntStream.range(0, size)
                .mapToObj(n -> OutboxEvent.builder()
                        .type("t")
                        .destination("orders")
                        .routingKey("rk")
                        .payload(new byte[0])
                        .build())
                .toList());
    }

    private static List<Integer> all(BatchPublication publication) {
        return IntStream.range(0, publication.size()).boxed().toList();
    }

    @Test
    @DisplayName("multiple and single confirms, in any order, settle exactly the events of their tags")
    void confirmsByTag() throws Exception {
        ConfirmingChannel channel = ConfirmingChannel.open(scripted.connection());
        BatchPublication first = batchOf(3);
        assertThat(channel.send(first, all(first), Long.MAX_VALUE)).isEmpty();
        scripted.confirms.handleAck(3, true);
        assertThat(first.awaitRound(System.nanoTime())).isTrue();
        assertThat(channel.isReusable()).isTrue();

        // the next round on the same channel starts at tag 4
        BatchPublication second = batchOf(6);
        assertThat(channel.send(second, all(second), Long.MAX_VALUE)).isEmpty();
        scripted.confirms.handleAck(6, false); // event 2, out of order
        scripted.confirms.handleNack(4, false); // event 0
        scripted.confirms.handleAck(5, false); // event 1
        assertThat(channel.isReusable()).isFalse();
        scripted.confirms.handleAck(8, true); // events 3 and 4 (2 already settled)
        scripted.confirms.handleAck(8, true); // a repeat changes nothing
        assertThat(second.awaitRound(System.nanoTime())).isFalse();
        scripted.confirms.handleNack(9, true); // event 5
        assertThat(second.awaitRound(System.nanoTime())).isTrue();
        assertThat(channel.isReusable()).isTrue();

        List<PublishOutcome> outcomes = second.finish("timeout");
        assertThat(outcomes.get(0))
                .isInstanceOfSatisfying(
                        PublishOutcome.Failed.class,
                        failed -> assertThat(failed.reason()).contains("negative publisher confirm"));
        assertThat(outcomes.subList(1, 5)).allMatch(PublishOutcome.Published.class::isInstance);
        assertThat(outcomes.get(5)).isInstanceOf(PublishOutcome.Failed.class);
        assertThat(first.finish("timeout")).allMatch(PublishOutcome.Published.class::isInstance);
    }

    @Test
    @DisplayName("a publish that fails closes the channel: earlier unconfirmed events are lost, the rest not sent")
    void failedPublish() throws Exception {
        ConfirmingChannel channel = ConfirmingChannel.open(scripted.connection());
        BatchPublication publication = batchOf(5);
        scripted.failAt = 4;

        List<Integer> notSent = channel.send(publication, all(publication), Long.MAX_VALUE);

        assertThat(notSent).containsExactly(3, 4);
        assertThat(publication.awaitRound(System.nanoTime())).isTrue();
        assertThat(publication.takeLost()).containsExactly(0, 1, 2);
        assertThat(channel.closedBy()).isPresent();
        assertThat(channel.isReusable()).isFalse();
    }

    @Test
    @DisplayName("an event the closing channel already reported lost is not also returned as not sent")
    void failedPublishAfterClose() throws Exception {
        ConfirmingChannel channel = ConfirmingChannel.open(scripted.connection());
        BatchPublication publication = batchOf(5);
        scripted.failAt = 3;
        scripted.closeWhenFailing = true;

        List<Integer> notSent = channel.send(publication, all(publication), Long.MAX_VALUE);

        assertThat(notSent).containsExactly(3, 4);
        assertThat(publication.awaitRound(System.nanoTime())).isTrue();
        assertThat(publication.takeLost()).containsExactly(0, 1, 2);
    }

    @Test
    @DisplayName("the channel closing reports every unconfirmed event lost, once")
    void shutdownLosesUnconfirmed() throws Exception {
        ConfirmingChannel channel = ConfirmingChannel.open(scripted.connection());
        BatchPublication publication = batchOf(4);
        channel.send(publication, all(publication), Long.MAX_VALUE);
        scripted.confirms.handleAck(2, false);

        channel.abort();
        channel.abort();
        scripted.confirms.handleAck(4, true); // late: ignored

        assertThat(publication.awaitRound(System.nanoTime())).isTrue();
        assertThat(publication.takeLost()).containsExactly(0, 2, 3);
        assertThat(publication.finish("timeout").get(1)).isInstanceOf(PublishOutcome.Published.class);
    }
}
