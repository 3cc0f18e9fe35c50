package dev.outboxjava.relayapp.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.testkit.fixture.ChildJvm;
import dev.outboxjava.testkit.kafka.EmbeddedKafkaBroker;
import dev.outboxjava.testkit.kafka.KafkaIdCollector;
import dev.outboxjava.testkit.postgres.PostgresFixture;
import dev.outboxjava.worker.testsupport.OutboxTable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The same standalone jar with {@code OUTBOX_BROKER=kafka}: swapping brokers is one setting. The
 * Kafka broker runs in this test JVM (KRaft, from the testkit) and is stopped mid-drain while more events arrive,
 * and restarted on the same port: the worker backs off, logs the outage once, and drains.
 */
@DisplayName("The standalone worker process with Kafka")
class KafkaWorkerProcessIT {

    private static final Logger log = LoggerFactory.getLogger(KafkaWorkerProcessIT.class);

    private static PostgresFixture postgres;
    private static EmbeddedKafkaBroker kafka;

    @BeforeAll
    static void services() {
        postgres = PostgresFixture.shared();
        kafka = EmbeddedKafkaBroker.start();
    }

    @AfterAll
    static void stop() {
        kafka.close();
    }

    @Test
    @DisplayName("a Kafka outage mid-drain: backs off, logs it once, drains every event after the restart")
    void ridesOutAKafkaOutage() throws Exception {
        String topic = "worker-it-" + UUID.randomUUID().toString().substring(0, 8);
        kafka.createTopic(topic, 3);
        try (KafkaIdCollector received = KafkaIdCollector.start(kafka.bootstrapServers(), topic);
                OutboxTable table = new OutboxTable(postgres)) {
            List<UUID> ids = new ArrayList<>(table.append(5000, topic, "order.placed"));
            Map<String, String> env = new HashMap<>();
            env.put("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
            env.put("OUTBOX_DB_URL", postgres.jdbcUrl());
            env.put("OUTBOX_DB_USER", postgres.user());
            env.put("OUTBOX_DB_PASSWORD", postgres.password());
            env.put("OUTBOX_TABLE", table.name);
            env.put("OUTBOX_BROKER", "kafka");
            env.put("OUTBOX_KAFKA_BOOTSTRAP_SERVERS", kafka.bootstrapServers());
            env.put("OUTBOX_RELAY_BATCH_SIZE", "100");
            env.put("OUTBOX_RELAY_PUBLISH_TIMEOUT", "5s");
            env.put("OUTBOX_SWEEPER_LEASE_TIMEOUT", "15s");
            env.put("OUTBOX_BACKOFF_MAX", "2s");
            env.put("OUTBOX_HTTP_PORT", "0");
            try (ChildJvm worker = WorkerJar.start("kafka-outage", env, "run")) {
                await().atMost(Duration.ofMinutes(3)).until(() -> received.distinct() >= 500 || !worker.isAlive());
                assertThat(worker.isAlive()).as(worker.output()).isTrue();

                kafka.stop();
                // appended during the outage, so the worker has events to fail on even if it drained the first ones
                ids.addAll(table.append(1000, topic, "order.placed"));
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> worker.linesContaining("broker unavailable, backing off") >= 1);
                Thread.sleep(10_000); // the outage
                assertThat(worker.isAlive()).isTrue();
                kafka.restart();

                Set<String> expected = ids.stream().map(UUID::toString).collect(Collectors.toSet());
                await().atMost(Duration.ofMinutes(3))
                        .untilAsserted(() -> assertThat(received.ids())
                                .as("worker log:\n%s", worker.output())
                                .containsAll(expected));
                await().atMost(Duration.ofSeconds(60)).until(() -> table.count(EventStatus.SENT) == ids.size());
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> worker.linesContaining("broker available again") >= 1);
                log.info(
                        "outage log lines:\n{}",
                        worker.output()
                                .lines()
                                .filter(line -> line.contains("worker.outage"))
                                .collect(Collectors.joining("\n")));

                assertThat(worker.linesContaining("broker unavailable, backing off"))
                        .isEqualTo(1);
                assertThat(worker.linesContaining("broker available again")).isEqualTo(1);
                assertThat(table.count(EventStatus.FAILED)).isZero();
                worker.terminate();
                worker.waitFor(Duration.ofSeconds(20));
                assertThat(table.count(EventStatus.IN_FLIGHT)).isZero();
            }
        }
    }
}
