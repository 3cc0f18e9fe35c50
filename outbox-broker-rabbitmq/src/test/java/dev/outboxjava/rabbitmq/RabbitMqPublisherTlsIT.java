package dev.outboxjava.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.PublishOutcome;
import dev.outboxjava.testkit.fixture.SelfSignedCertificate;
import dev.outboxjava.testkit.rabbitmq.EmbeddedQpidBroker;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The publisher over TLS ({@code amqps://}) against an in-process AMQP broker whose certificate the
 * test makes: trusted through {@code ssl.trust.store} it publishes; without it the certificate is
 * refused, because the publisher validates certificates unless told otherwise.
 */
@DisplayName("The RabbitMQ publisher over TLS")
class RabbitMqPublisherTlsIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    private static final String PASSWORD = "tls-" + UUID.randomUUID().toString().substring(0, 8);

    @TempDir
    static Path dir;

    private static SelfSignedCertificate certificate;
    private static EmbeddedQpidBroker broker;

    @BeforeAll
    static void start() {
        certificate = SelfSignedCertificate.create(dir, PASSWORD);
        broker = EmbeddedQpidBroker.startWithTls(certificate.keyStore(), PASSWORD, SelfSignedCertificate.STORE_TYPE);
    }

    @AfterAll
    static void stop() {
        broker.close();
    }

    private static String amqps() {
        return "amqps://" + EmbeddedQpidBroker.USERNAME + ":" + EmbeddedQpidBroker.PASSWORD + "@127.0.0.1:"
                + broker.tlsPort() + "/%2F";
    }

    @Test
    @DisplayName("with the certificate in ssl.trust.store, a batch is confirmed and arrives")
    void publishesOverTls() throws Exception {
        String exchange = "tls-it-" + UUID.randomUUID().toString().substring(0, 8);
        ConnectionFactory plain = new ConnectionFactory();
        plain.setHost("127.0.0.1");
        plain.setPort(broker.port());
        plain.setUsername(EmbeddedQpidBroker.USERNAME);
        plain.setPassword(EmbeddedQpidBroker.PASSWORD);
        try (Connection connection = plain.newConnection();
                Channel channel = connection.createChannel()) {
            channel.exchangeDeclare(exchange, "fanout");
            String queue = channel.queueDeclare().getQueue();
            channel.queueBind(queue, exchange, "");

            RabbitMqPublisherConfig config = RabbitMqPublisherConfig.builder()
                    .uri(amqps())
                    .connectionName("outbox-tls-it")
                    .property("ssl.trust.store", certificate.trustStore().toString())
                    .property("ssl.trust.store.password", PASSWORD)
                    .property("ssl.trust.store.type", SelfSignedCertificate.STORE_TYPE)
                    .build();
            assertThat(config.tls()).isTrue();
            assertThat(config.toString()).doesNotContain(PASSWORD);
            try (RabbitMqPublisher publisher = new RabbitMqPublisher(config)) {
                OutboxEvent event = OutboxEvent.builder()
                        .type("order.placed")
                        .source("/orders")
                        .destination(exchange)
                        .payload("{\"order\":1}".getBytes(StandardCharsets.UTF_8))
                        .build();
                List<PublishOutcome> outcomes =
                        publisher.publish(List.of(event), TIMEOUT).get(TIMEOUT.toSeconds() + 10, TimeUnit.SECONDS);
                assertThat(outcomes).containsExactly(PublishOutcome.published(event.id()));
            }
            GetResponse received = channel.basicGet(queue, true);
            assertThat(received).isNotNull();
            assertThat(new String(received.getBody(), StandardCharsets.UTF_8)).isEqualTo("{\"order\":1}");
        }
    }

    @Test
    @DisplayName(
            "without a trust store for its self-signed certificate, the broker is refused: certificates are validated")
    void refusesAnUntrustedCertificate() throws Exception {
        RabbitMqPublisherConfig config = RabbitMqPublisherConfig.builder()
                .uri(amqps())
                .connectionName("outbox-tls-untrusted-it")
                .build();
        try (RabbitMqPublisher publisher = new RabbitMqPublisher(config)) {
            OutboxEvent event = OutboxEvent.builder()
                    .type("order.placed")
                    .source("/orders")
                    .destination("anything")
                    .payload(new byte[] {1})
                    .build();
            List<PublishOutcome> outcomes =
                    publisher.publish(List.of(event), TIMEOUT).get(TIMEOUT.toSeconds() + 10, TimeUnit.SECONDS);
            assertThat(outcomes)
                    .singleElement()
                    .isInstanceOfSatisfying(
                            PublishOutcome.Failed.class,
                            failed -> assertThat(failed.retryable()).isTrue());
            assertThat(publisher.checkHealth().healthy()).isFalse();
            assertThat(publisher.checkHealth().detail()).containsIgnoringCase("certificat");
        }
    }
}
