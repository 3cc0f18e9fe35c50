package dev.outboxjava.kafka.internal;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.errors.UnsupportedVersionException;

/**
 * Sorts Kafka client errors into what an outbox relay can act on: worth retrying later, or not
 * (the event would fail again however often it is sent), and whether the producer instance itself
 * is finished and must be replaced.
 *
 * <p>Anything not known to be permanent is retryable: a wrong "retryable" costs a few attempts
 * before the event is dead-lettered, a wrong "not retryable" dead-letters an event a passing
 * outage would have let through.
 */
final class KafkaErrors {

    private KafkaErrors() {}

    /**
     * What one error means for the event it hit.
     *
     * @param reason          the error in words, with a hint for permanent failures
     * @param retryable       whether a later attempt can succeed
     * @param producerBroken  whether the producer must be closed and created anew
     */
    public record Classified(String reason, boolean retryable, boolean producerBroken) {}

    /** Classifies {@code error} (wrappers such as {@link ExecutionException} are looked through). */
    public static Classified classify(Throwable error) {
        Throwable e = unwrap(error);
        String described = describe(e);
        if (e instanceof RecordTooLargeException || e instanceof RecordBatchTooLargeException) {
            return permanent(described + " (send a smaller event, or raise the publisher's max.request.size and the "
                    + "topic's max.message.bytes)");
        }
        if (e instanceof InvalidTopicException) {
            return permanent(described + " (the event's destination is not a valid Kafka topic name)");
        }
        if (e instanceof ClusterAuthorizationException || e instanceof TransactionalIdAuthorizationException) {
            return new Classified(described + " (grant the publisher's principal the missing ACL)", false, true);
        }
        if (e instanceof AuthorizationException) {
            return permanent(described + " (grant the publisher's principal WRITE on the topic)");
        }
        if (e instanceof AuthenticationException) {
            return permanent(described + " (check the publisher's security.protocol / sasl.* / ssl.* settings)");
        }
        if (e instanceof SerializationException) {
            return permanent(described + " (the event cannot be serialized)");
        }
        if (e instanceof InvalidRecordException) {
            return permanent(described + " (the broker refuses this record, e.g. a compacted topic needs a key)");
        }
        if (e instanceof UnpublishableEventException) {
            return permanent(described);
        }
        if (e instanceof ProducerFencedException
                || e instanceof OutOfOrderSequenceException
                || e instanceof InvalidProducerEpochException
                || e instanceof UnsupportedVersionException
                || e instanceof IllegalStateException) {
            return new Classified(
                    described + " (the Kafka producer cannot continue and is being replaced)", true, true);
        }
        // RetriableException (timeouts, not enough replicas, leader moves, network), broker not
        // available, interruptions, and whatever is not known to be permanent.
        return new Classified(described, true, false);
    }

    /** The innermost meaningful error of {@code error}. */
    public static Throwable unwrap(Throwable error) {
        Throwable e = error;
        while ((e instanceof ExecutionException || e instanceof CompletionException) && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }

    private static Classified permanent(String reason) {
        return new Classified(reason, false, false);
    }

    private static String describe(Throwable e) {
        String message = e.getMessage();
        return e.getClass().getSimpleName() + (message == null || message.isBlank() ? "" : ": " + message);
    }
}
