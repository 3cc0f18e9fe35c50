package dev.outboxjava.testkit.kafka;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * Creates topics that take records the moment they are returned.
 *
 * <p>A KRaft controller answers CreateTopics once the topic is in its metadata log; the broker applies
 * it a little later. An idempotent producer that sends in that gap can lose a race (KAFKA-15591): its
 * first request fails with NOT_LEADER_OR_FOLLOWER, a later request to the same partition is appended,
 * and the first one is then refused with OUT_OF_ORDER_SEQUENCE_NUMBER until its delivery timeout. So
 * after creating, this waits until every partition's leader answers a ListOffsets request, which the
 * broker serves only for partitions it has opened.
 */
public final class KafkaTopics {

    private static final Duration RETRY_PAUSE = Duration.ofMillis(50);

    private KafkaTopics() {}

    /**
     * Creates {@code name} with {@code partitions} partitions and replication factor 1 (an existing topic
     * is left as it is), then waits until every partition takes records.
     *
     * @throws IllegalStateException naming the topic and {@code bootstrapServers} if the topic cannot be
     *     created or is not ready within {@code timeout}
     */
    public static void createAndAwaitReady(
            Admin admin, String name, int partitions, Duration timeout, String bootstrapServers) {
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1)))
                    .all()
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw new IllegalStateException(
                        "cannot create topic " + name + " on " + bootstrapServers + ": " + e.getCause(), e);
            }
        } catch (TimeoutException e) {
            throw new IllegalStateException(
                    "Kafka at " + bootstrapServers + " did not create topic " + name + " within " + timeout, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topic " + name, e);
        }
        awaitReady(admin, name, partitions, deadline, timeout, bootstrapServers);
    }

    private static void awaitReady(
            Admin admin, String name, int partitions, long deadline, Duration timeout, String bootstrapServers) {
        Map<TopicPartition, OffsetSpec> ends = IntStream.range(0, partitions)
                .mapToObj(p -> new TopicPartition(name, p))
                .collect(Collectors.toMap(Function.identity(), p -> OffsetSpec.latest()));
        Throwable last = null;
        while (System.nanoTime() - deadline < 0) {
            long leftMillis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
            try {
                admin.listOffsets(ends, new ListOffsetsOptions().timeoutMs((int) Math.min(leftMillis, 5_000)))
                        .all()
                        .get(leftMillis, TimeUnit.MILLISECONDS);
                return;
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof RetriableException)) {
                    throw new IllegalStateException(
                            "topic " + name + " on " + bootstrapServers + " was created but cannot be read: "
                                    + e.getCause(),
                            e);
                }
                last = e.getCause();
            } catch (TimeoutException e) {
                last = e;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for topic " + name, e);
            }
            try {
                Thread.sleep(RETRY_PAUSE.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for topic " + name, e);
            }
        }
        throw new IllegalStateException("topic " + name + " on " + bootstrapServers + " was created, but not all "
                + partitions + " partitions had a leader taking records within " + timeout
                + (last == null ? "" : " (last answer: " + last + ")"));
    }
}
