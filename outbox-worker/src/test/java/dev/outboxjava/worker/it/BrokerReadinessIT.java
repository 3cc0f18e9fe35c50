package dev.outboxjava.worker.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.inject.Guice;
import dev.outboxjava.core.HealthCheck;
import dev.outboxjava.postgres.WakeUpMode;
import dev.outboxjava.rabbitmq.RabbitMqPublisherConfig;
import dev.outboxjava.testkit.postgres.PostgresFixture;
import dev.outboxjava.testkit.rabbitmq.RabbitMqFixture;
import dev.outboxjava.worker.OutboxWorker;
import dev.outboxjava.worker.OutboxWorkerConfig;
import dev.outboxjava.worker.OutboxWorkerModule;
import dev.outboxjava.worker.PostgresStoreModule;
import dev.outboxjava.worker.RabbitMqPublisherModule;
import dev.outboxjava.worker.testsupport.OutboxTable;
import dev.outboxjava.worker.testsupport.TcpProxy;
import java.time.Duration;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Readiness and a broker outage, against the real RabbitMQ behind a TCP proxy this test owns: a broker
 * that stops answering leaves the worker ready for {@code outbox.health.max.broker.outage}, then makes it
 * not ready until it answers again.
 */
@DisplayName("Readiness during a broker outage")
class BrokerReadinessIT {

    private PostgresFixture postgres;
    private RabbitMqFixture rabbit;
    private OutboxTable table;

    @BeforeEach
    void fresh() {
        postgres = PostgresFixture.shared();
        rabbit = RabbitMqFixture.start();
        table = new OutboxTable(postgres);
    }

    @AfterEach
    void cleanUp() throws Exception {
        table.close();
        rabbit.close();
    }

    @Test
    @DisplayName("an unreachable broker flips readiness only once it has been down longer than the threshold")
    void brokerOutagePastItsThreshold() throws Exception {
        try (TcpProxy proxy = new TcpProxy(rabbit.host(), rabbit.port())) {
            String uri = rabbit.uri()
                    .replace("@" + rabbit.host() + ":" + rabbit.port() + "/", "@127.0.0.1:" + proxy.port() + "/");
            assertThat(uri).contains(":" + proxy.port() + "/");
            DataSource database = PlainDataSources.simple(postgres.jdbcUrl(), postgres.user(), postgres.password());
            OutboxWorker worker = Guice.createInjector(
                            new OutboxWorkerModule(OutboxWorkerConfig.builder()
                                    .maxBrokerOutage(Duration.ofSeconds(2))
                                    .build()),
                            new PostgresStoreModule(database, PlainDataSources.keepSent(table.name, WakeUpMode.NONE)),
                            new RabbitMqPublisherModule(RabbitMqPublisherConfig.builder()
                                    .uri(uri)
                                    .connectionName("broker-readiness-it-"
                                            + UUID.randomUUID().toString().substring(0, 8))
                                    .build()))
                    .getInstance(OutboxWorker.class);
            try (worker) {
                worker.start();
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> worker.checkReadiness().healthy());

                proxy.cut();
                // the first failed check starts the outage: still ready, and the detail says so
                HealthCheck first = await().atMost(Duration.ofSeconds(30))
                        .until(worker::checkReadiness, check -> check.detail().contains("broker: DOWN for"));
                assertThat(first.healthy()).as(first.detail()).isTrue();
                assertThat(first.detail()).contains("within outbox.health.max.broker.outage=2s");

                HealthCheck later =
                        await().atMost(Duration.ofSeconds(30)).until(worker::checkReadiness, check -> !check.healthy());
                assertThat(later.detail()).contains("over outbox.health.max.broker.outage=2s");

                proxy.restore();
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> worker.checkReadiness().healthy());
                assertThat(worker.checkReadiness().detail()).contains("broker: UP");
            }
        }
    }
}
