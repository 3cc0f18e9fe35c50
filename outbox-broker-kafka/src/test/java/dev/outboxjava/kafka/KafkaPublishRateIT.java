package dev.outboxjava.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.PublishOutcome;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Prints how fast the publisher pushes 10,000 events of 1 KB to a real broker, batch after batch as
 * a relay does (each batch awaited before the next). A figure for the reader, not an assertion: the
 * machine and the broker (embedded here) decide the number.
 */
class KafkaPublishRateIT {

    private static final int EVENTS = 10_000;
    private static final int PAYLOAD_BYTES = 1024;
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @RegisterExtension
    static final KafkaWithPublisher kafka = new KafkaWithPublisher();

    private static List<OutboxEvent> events(String topic, int count) {
        Random random = new Random(42);
        return IntStream.range(0, count)
                .mapToObj(n -> {
                    byte[] payload = new byte[PAYLOAD_BYTES];
                    random.nextBytes(payload); // incompressible, should compression be switched on
                    return OutboxEvent.builder()
                            .type("order.placed")
                            .source("/orders-service")
                            .key("order-" + (n % 1000))
                            .destination(topic)
                            .contentType("application/octet-stream")
                            .payload(payload)
                            .build();
                })
                .toList();
    }

    private static long publishAll(List<OutboxEvent> events, int batchSize) throws Exception {
        long started = System.nanoTime();
        for (int from = 0; from < events.size(); from += batchSize) {
            List<PublishOutcome> outcomes = kafka.publisher()
                    .publish(events.subList(from, Math.min(events.size(), from + batchSize)), TIMEOUT)
                    .get(TIMEOUT.toSeconds() + 10, TimeUnit.SECONDS);
            assertThat(outcomes).allSatisfy(o -> assertThat(o).isInstanceOf(PublishOutcome.Published.class));
        }
        return System.nanoTime() - started;
    }

    @Test
    @DisplayName("prints the publish rate for 10,000 x 1 KB events")
    void printRate() throws Exception {
        String topic = kafka.fixture().createTopic("rate", 4);
        publishAll(events(topic, 2_000), 500); // warm-up: connections, metadata, JIT

        for (int batchSize : new int[] {100, 500, 1000}) {
            List<OutboxEvent> events = events(topic, EVENTS);
            long nanos = publishAll(events, batchSize);
            double seconds = nanos / 1e9;
            System.out.printf(
                    "Kafka publish rate (%s broker, 4 partitions, acks=all, idempotent, compression %s): "
                            + "%,d x %d B events in batches of %d: %,.0f events/s (%.2f MB/s, %d ms)%n",
                    kafka.fixture().origin().name().toLowerCase(),
                    KafkaPublisherConfig.DEFAULT_COMPRESSION_TYPE,
                    EVENTS,
                    PAYLOAD_BYTES,
                    batchSize,
                    EVENTS / seconds,
                    EVENTS * (double) PAYLOAD_BYTES / seconds / 1e6,
                    TimeUnit.NANOSECONDS.toMillis(nanos));
        }
    }
}
