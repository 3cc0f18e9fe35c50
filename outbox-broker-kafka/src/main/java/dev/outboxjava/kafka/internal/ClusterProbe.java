package dev.outboxjava.kafka.internal;

import dev.outboxjava.core.HealthCheck;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * Asks the cluster through an admin client (created on first use): is it reachable, does a topic
 * exist, and are its partitions served yet. Every call is bounded by the timeout it is given. Not
 * final only so that tests can script its answers.
 */
public class ClusterProbe {

    /** What the cluster says about a topic. */
    public enum TopicState {
        EXISTS,
        MISSING,
        UNKNOWN
    }

    private final Map<String, Object> adminProperties;
    private final String bootstrapServers;
    private Admin admin;
    private boolean closed;

    public ClusterProbe(Map<String, Object> adminProperties, String bootstrapServers) {
        this.adminProperties = adminProperties;
        this.bootstrapServers = bootstrapServers;
    }

    /** Whether the cluster answers a describe-cluster request within {@code timeout}. */
    public HealthCheck health(Duration timeout) {
        long millis = Math.max(1, timeout.toMillis());
        try {
            DescribeClusterResult cluster =
                    admin().describeCluster(new DescribeClusterOptions().timeoutMs((int) millis));
            String clusterId = cluster.clusterId().get(millis, TimeUnit.MILLISECONDS);
            Collection<Node> nodes = cluster.nodes().get(millis, TimeUnit.MILLISECONDS);
            return HealthCheck.up("Kafka cluster " + clusterId + " at " + bootstrapServers + " answered with "
                    + nodes.size() + " broker(s)");
        } catch (ExecutionException e) {
            return HealthCheck.down("Kafka at " + bootstrapServers + " did not answer: "
                    + KafkaErrors.classify(e).reason());
        } catch (java.util.concurrent.TimeoutException e) {
            return HealthCheck.down("Kafka at " + bootstrapServers + " did not answer within " + timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return HealthCheck.down("interrupted while checking Kafka at " + bootstrapServers);
        } catch (RuntimeException e) {
            return HealthCheck.down("cannot check Kafka at " + bootstrapServers + ": " + e);
        }
    }

    /**
     * Whether each of {@code topics} exists, asked in one request and answered within {@code timeout}
     * altogether: a topic without an answer by then is {@link TopicState#UNKNOWN}.
     */
    public Map<String, TopicState> topicStates(Collection<String> topics, Duration timeout) {
        long millis = Math.max(1, timeout.toMillis());
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        Map<String, TopicState> states = new HashMap<>();
        Map<String, KafkaFuture<TopicDescription>> answers;
        try {
            answers = admin().describeTopics(topics, new DescribeTopicsOptions().timeoutMs((int) millis))
                    .topicNameValues();
        } catch (RuntimeException e) {
            topics.forEach(topic -> states.put(topic, TopicState.UNKNOWN));
            return states;
        }
        for (String topic : topics) {
            states.put(topic, state(answers.get(topic), deadline));
        }
        return states;
    }

    private static TopicState state(KafkaFuture<TopicDescription> answer, long deadline) {
        if (answer == null) {
            return TopicState.UNKNOWN;
        }
        try {
            answer.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            return TopicState.EXISTS;
        } catch (ExecutionException e) {
            return e.getCause() instanceof UnknownTopicOrPartitionException ? TopicState.MISSING : TopicState.UNKNOWN;
        } catch (java.util.concurrent.TimeoutException e) {
            return TopicState.UNKNOWN;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return TopicState.UNKNOWN;
        } catch (RuntimeException e) {
            return TopicState.UNKNOWN;
        }
    }

    /** Whether a topic's partition leaders serve requests for it yet. */
    public enum PartitionsState {
        SERVED,
        NOT_YET_SERVED,
        UNANSWERABLE
    }

    /**
     * Whether every one of {@code partitions} of {@code topic} is open on its leader, found with a
     * ListOffsets request (which a broker answers only for partitions it has opened). A retriable refusal
     * or no answer within {@code timeout} is {@link PartitionsState#NOT_YET_SERVED}; any other refusal
     * (no permission, say) is {@link PartitionsState#UNANSWERABLE}: this probe cannot tell.
     */
    public PartitionsState partitionsState(String topic, int partitions, Duration timeout) {
        long millis = Math.max(1, timeout.toMillis());
        Map<TopicPartition, OffsetSpec> ends = new HashMap<>();
        for (int partition = 0; partition < partitions; partition++) {
            ends.put(new TopicPartition(topic, partition), OffsetSpec.latest());
        }
        try {
            admin().listOffsets(ends, new ListOffsetsOptions().timeoutMs((int) millis))
                    .all()
                    .get(millis, TimeUnit.MILLISECONDS);
            return PartitionsState.SERVED;
        } catch (ExecutionException e) {
            return e.getCause() instanceof RetriableException
                    ? PartitionsState.NOT_YET_SERVED
                    : PartitionsState.UNANSWERABLE;
        } catch (java.util.concurrent.TimeoutException e) {
            return PartitionsState.NOT_YET_SERVED;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return PartitionsState.NOT_YET_SERVED;
        } catch (RuntimeException e) {
            return PartitionsState.UNANSWERABLE;
        }
    }

    public synchronized void close() {
        closed = true;
        if (admin != null) {
            admin.close(Duration.ZERO);
            admin = null;
        }
    }

    private synchronized Admin admin() {
        if (closed) {
            throw new IllegalStateException("the Kafka publisher is closed");
        }
        if (admin == null) {
            admin = Admin.create(adminProperties);
        }
        return admin;
    }
}
