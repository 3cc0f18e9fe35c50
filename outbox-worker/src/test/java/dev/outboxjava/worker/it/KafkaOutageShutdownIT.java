package dev.outboxjava.worker.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.relay.RelayConfig;
import dev.outboxjava.core.relay.SweeperConfig;
import dev.outboxjava.kafka.KafkaPublisher;
import dev.outboxjava.kafka.KafkaPublisherConfig;
import dev.outboxjava.testkit.kafka.EmbeddedKafkaBroker;
import dev.outboxjava.testkit.postgres.PostgresFixture;
import dev.outboxjava.worker.OutboxWorker;
import dev.outboxjava.worker.OutboxWorkerConfig;
import dev.outboxjava.worker.testsupport.OutboxTable;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Shutdown during a Kafka outage has one budget: the publisher closes within what is left of the
 * worker's shutdown timeout, not within its own close timeout on top of it.
 */
@DisplayName("A worker closed during a Kafka outage")
class KafkaOutageShutdownIT {

    private static final Logger log = LoggerFactory.getLogger(KafkaOutageShutdownIT.class);
    private static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(3);
    /** The promise: the shutdown timeout plus this, whatever the broker does. */
    private static final Duration PROMISED_GRACE = Duration.ofSeconds(2);

    @Test
    @DisplayName("stops within its shutdown timeout + 2 s although the publisher's own close timeout is 10 s")
    void oneBudget() throws Exception {
        PostgresFixture postgres = PostgresFixture.shared();
        try (EmbeddedKafkaBroker kafka = EmbeddedKafkaBroker.start();
                OutboxTable table = new OutboxTable(postgres)) {
            String topic = "outage-shutdown-" + UUID.randomUUID().toString().substring(0, 8);
            kafka.createTopic(topic, 3);
            KafkaPublisherConfig kafkaConfig = KafkaPublisherConfig.builder()
                    .bootstrapServers(kafka.bootstrapServers())
                    .build();
            assertThat(kafkaConfig.closeTimeout()).isEqualTo(Duration.ofSeconds(10));
            OutboxWorker worker = OutboxWorker.builder()
                    .store(table.store)
                    .publisher(KafkaPublisher.create(kafkaConfig))
                    .config(OutboxWorkerConfig.builder()
                            .relay(new RelayConfig(100, Duration.ofSeconds(60)))
                            .sweeper(new SweeperConfig(Duration.ofMinutes(2), 1000, 10))
                            .pollInterval(Duration.ofMillis(200))
                            .shutdownTimeout(SHUTDOWN_TIMEOUT)
                            .build())
                    .build();
            try {
                table.append(200, topic, "order.placed");
                worker.start();
                await().atMost(Duration.ofSeconds(60)).until(() -> table.count(EventStatus.SENT) == 200);

                kafka.stop();
                table.append(300, topic, "order.placed");
                await().atMost(Duration.ofSeconds(30)).until(() -> table.count(EventStatus.IN_FLIGHT) > 0);

                long started = System.nanoTime();
                worker.close();
                Duration took = Duration.ofNanos(System.nanoTime() - started);
                log.info(
                        "worker closed during the Kafka outage in {} ms (shutdown timeout {})",
                        took.toMillis(),
                        SHUTDOWN_TIMEOUT);

                assertThat(took).isLessThanOrEqualTo(SHUTDOWN_TIMEOUT.plus(PROMISED_GRACE));
                assertThat(table.count(EventStatus.IN_FLIGHT)).isZero();
                assertThat(table.count(EventStatus.PENDING)).isEqualTo(300);
            } finally {
                worker.close();
            }
        }
    }
}
