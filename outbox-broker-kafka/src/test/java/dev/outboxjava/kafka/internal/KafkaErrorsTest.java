package dev.outboxjava.kafka.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.ExecutionException;
import java.util.stream.Stream;
import org.apache.kafka.common.errors.BrokerNotAvailableException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.NetworkException;
import org.apache.kafka.common.errors.NotEnoughReplicasAfterAppendException;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class KafkaErrorsTest {

    static Stream<Throwable> permanent() {
        return Stream.of(
                new RecordTooLargeException("too big"),
                new InvalidTopicException("bad name"),
                new TopicAuthorizationException("no ACL"),
                new SaslAuthenticationException("bad password"),
                new SerializationException("cannot serialize"),
                new UnpublishableEventException("source is not a URI"));
    }

    static Stream<Throwable> passing() {
        return Stream.of(
                new TimeoutException("expired"),
                new NotEnoughReplicasException("isr"),
                new NotEnoughReplicasAfterAppendException("isr"),
                new NetworkException("reset"),
                new BrokerNotAvailableException("down"),
                new NotLeaderOrFollowerException("moved"),
                new RuntimeException("something unknown"));
    }

    @ParameterizedTest
    @MethodSource("permanent")
    @DisplayName("errors no retry can fix are not retryable, and the reason names the error")
    void notRetryable(Throwable error) {
        KafkaErrors.Classified classified = KafkaErrors.classify(error);

        assertThat(classified.retryable()).isFalse();
        assertThat(classified.producerBroken()).isFalse();
        assertThat(classified.reason())
                .startsWith(error.getClass().getSimpleName())
                .contains(error.getMessage());
    }

    @ParameterizedTest
    @MethodSource("passing")
    @DisplayName("timeouts, replica shortages, network trouble and unknown errors are retryable")
    void retryable(Throwable error) {
        KafkaErrors.Classified classified = KafkaErrors.classify(error);

        assertThat(classified.retryable()).isTrue();
        assertThat(classified.producerBroken()).isFalse();
    }

    @Test
    @DisplayName("a fenced or out-of-sequence producer must be replaced; the event is retryable")
    void fatalProducerErrors() {
        assertThat(KafkaErrors.classify(new ProducerFencedException("fenced")))
                .extracting(KafkaErrors.Classified::retryable, KafkaErrors.Classified::producerBroken)
                .containsExactly(true, true);
        assertThat(KafkaErrors.classify(new OutOfOrderSequenceException("gap")).producerBroken())
                .isTrue();
    }

    @Test
    @DisplayName("wrappers such as ExecutionException are looked through")
    void unwraps() {
        assertThat(KafkaErrors.classify(new ExecutionException(new RecordTooLargeException("big")))
                        .retryable())
                .isFalse();
    }

    @Test
    @DisplayName("a too-large record's reason says what to change")
    void tooLargeHint() {
        assertThat(KafkaErrors.classify(new RecordTooLargeException("big")).reason())
                .contains("max.request.size");
    }
}
