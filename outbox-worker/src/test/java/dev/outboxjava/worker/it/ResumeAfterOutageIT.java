package dev.outboxjava.worker.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import com.google.inject.Guice;
import com.google.inject.Module;
import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.relay.RelayConfig;
import dev.outboxjava.kafka.KafkaPublisherConfig;
import dev.outboxjava.postgres.WakeUpMode;
import dev.outboxjava.rabbitmq.RabbitMqPublisherConfig;
import dev.outboxjava.testkit.kafka.EmbeddedKafkaBroker;
import dev.outboxjava.testkit.kafka.KafkaIdCollector;
import dev.outboxjava.worker.KafkaPublisherModule;
import dev.outboxjava.worker.OutboxWorker;
import dev.outboxjava.worker.OutboxWorkerConfig;
import dev.outboxjava.worker.OutboxWorkerModule;
import dev.outboxjava.worker.PostgresStoreModule;
import dev.outboxjava.worker.RabbitMqPublisherModule;
import dev.outboxjava.worker.internal.LogCapture;
import dev.outboxjava.worker.testsupport.TcpProxy;
import dev.outboxjava.worker.testsupport.WorkerFixture;
import java.net.URI;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A worker whose outage backoff is two minutes resumes within seconds of its dependency's return:
 * RabbitMQ and PostgreSQL behind a proxy this test cuts (this worker's connections only), and the
 * in-process Kafka broker this test stops and restarts. Only the relay touches the dependency after
 * the first tick (the other loops wait an hour), so the outage it logs is the relay's own.
 */
@DisplayName("A worker with a long outage backoff")
class ResumeAfterOutageIT {

    private static final Logger log = LoggerFactory.getLogger(ResumeAfterOutageIT.class);
    /** Far longer than the bound below: a relay that sits out its backoff fails the test. */
    private static final Duration BACKOFF = Duration.ofMinutes(2);
    /** Generous for this machine; covers the clients' own reconnect intervals (RabbitMQ's, Hikari's). */
    private static final Duration RESUME_BOUND = Duration.ofSeconds(30);

    @RegisterExtension
    static final WorkerFixture fixture = new WorkerFixture("resume-it");

    private LogCapture outages;

    @BeforeEach
    void captureOutages() {
        outages = new LogCapture("dev.outboxjava.worker.outage");
    }

    @AfterEach
    void stopCapturing() {
        outages.close();
    }

    private static OutboxWorkerConfig config() {
        return OutboxWorkerConfig.builder()
                .relay(new RelayConfig(100, Duration.ofSeconds(5)))
                .pollInterval(Duration.ofMillis(200))
                .backoffInitial(BACKOFF)
                .backoffMax(BACKOFF)
                .sweepInterval(Duration.ofHours(1))
                .metricsPollInterval(Duration.ofHours(1))
                .cleanerEnabled(false)
                .shutdownTimeout(Duration.ofSeconds(5))
                .build();
    }

    private OutboxWorker worker(String databaseUrl, Module publisher) {
        DataSource database = PlainDataSources.simple(
                databaseUrl, fixture.postgres().user(), fixture.postgres().password());
        return Guice.createInjector(
                        new OutboxWorkerModule(config()),
                        new PostgresStoreModule(
                                database, PlainDataSources.keepSent(fixture.table().name, WakeUpMode.NONE)),
                        publisher)
                .getInstance(OutboxWorker.class);
    }

    private RabbitMqPublisherModule rabbitMq(int port) {
        return new RabbitMqPublisherModule(RabbitMqPublisherConfig.builder()
                .uri(fixture.rabbitUriVia(port))
                .connectionName(
                        "outbox-resume-it-" + UUID.randomUUID().toString().substring(0, 8))
                .build());
    }

    private static Set<String> strings(Collection<UUID> ids) {
        return ids.stream().map(UUID::toString).collect(Collectors.toSet());
    }

    private void awaitOutageLogged(String dependency) {
        await().atMost(Duration.ofMinutes(1))
                .until(() -> outages.atLeast(Level.WARN).stream()
                        .anyMatch(line -> line.startsWith(dependency + " unavailable")));
    }

    /** Awaits every id within the bound after the dependency returned, and logs how long it took. */
    private static void awaitResumed(String dependency, Supplier<Set<String>> received, List<UUID> ids) {
        long back = System.nanoTime();
        await().atMost(RESUME_BOUND)
                .pollInterval(Duration.ofMillis(100))
                .untilAsserted(() -> assertThat(received.get()).containsAll(strings(ids)));
        log.info(
                "{} back: every waiting event delivered {} ms later (outage backoff {})",
                dependency,
                (System.nanoTime() - back) / 1_000_000,
                BACKOFF);
    }

    @Test
    @DisplayName("RabbitMQ back: events flow again within seconds, not after the backoff")
    void resumesWhenRabbitMqReturns() throws Exception {
        try (TcpProxy proxy =
                        new TcpProxy(fixture.rabbit().host(), fixture.rabbit().port());
                OutboxWorker worker = worker(fixture.postgres().jdbcUrl(), rabbitMq(proxy.port()))) {
            List<UUID> before = fixture.table().append(10, fixture.destination().exchange(), "order.placed");
            worker.start();
            await().atMost(Duration.ofMinutes(1))
                    .until(() -> fixture.inbox().ids().containsAll(strings(before)));

            proxy.cut();
            List<UUID> during = fixture.table().append(20, fixture.destination().exchange(), "order.placed");
            awaitOutageLogged("broker");
            proxy.restore();

            awaitResumed("RabbitMQ", fixture.inbox()::ids, during);
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> outages.atLeast(Level.INFO).stream()
                            .anyMatch(line -> line.startsWith("broker available again")));
        }
        assertThat(fixture.table().count(EventStatus.FAILED)).isZero();
    }

    @Test
    @DisplayName("PostgreSQL back: events flow again within seconds, not after the backoff")
    void resumesWhenTheDatabaseReturns() throws Exception {
        URI database = URI.create(fixture.postgres().jdbcUrl().substring("jdbc:".length()));
        try (TcpProxy proxy = new TcpProxy(database.getHost(), database.getPort() == -1 ? 5432 : database.getPort());
                OutboxWorker worker = worker(
                        "jdbc:postgresql://127.0.0.1:" + proxy.port() + database.getPath(),
                        new RabbitMqPublisherModule(RabbitMqPublisherConfig.builder()
                                .uri(fixture.rabbit().uri())
                                .connectionName("outbox-resume-it-db")
                                .build()))) {
            List<UUID> before = fixture.table().append(10, fixture.destination().exchange(), "order.placed");
            worker.start();
            await().atMost(Duration.ofMinutes(1))
                    .until(() -> fixture.inbox().ids().containsAll(strings(before)));
            // marked sent before the cut: a mark cut off would leave the batch in flight for the whole lease
            await().atMost(Duration.ofMinutes(1)).until(() -> fixture.table().count(EventStatus.SENT) == before.size());

            proxy.cut();
            awaitOutageLogged("database");
            // straight to the database
            List<UUID> during = fixture.table().append(20, fixture.destination().exchange(), "order.placed");
            Thread.sleep(3_000); // the outage goes on: the relay's probes find the database down meanwhile
            proxy.restore();

            awaitResumed("PostgreSQL", fixture.inbox()::ids, during);
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> outages.atLeast(Level.INFO).stream()
                            .anyMatch(line -> line.startsWith("database available again")));
        }
        assertThat(fixture.table().count(EventStatus.IN_FLIGHT)).isZero();
    }

    @Test
    @DisplayName("Kafka back: events flow again within seconds, not after the backoff")
    void resumesWhenKafkaReturns() throws Exception {
        String topic = "resume-it-" + UUID.randomUUID().toString().substring(0, 8);
        try (EmbeddedKafkaBroker kafka = EmbeddedKafkaBroker.start()) {
            kafka.createTopic(topic, 1);
            try (KafkaIdCollector received = KafkaIdCollector.start(kafka.bootstrapServers(), topic);
                    OutboxWorker worker = worker(
                            fixture.postgres().jdbcUrl(),
                            new KafkaPublisherModule(KafkaPublisherConfig.builder()
                                    .bootstrapServers(kafka.bootstrapServers())
                                    .build()))) {
                List<UUID> before = fixture.table().append(10, topic, "order.placed");
                worker.start();
                await().atMost(Duration.ofMinutes(1)).until(() -> received.ids().containsAll(strings(before)));

                kafka.stop();
                List<UUID> during = fixture.table().append(20, topic, "order.placed");
                awaitOutageLogged("broker");
                kafka.restart();

                awaitResumed("Kafka", received::ids, during);
            }
        }
        assertThat(fixture.table().count(EventStatus.FAILED)).isZero();
    }
}
