package dev.outboxjava.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxjava.core.InvalidConfigurationException;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class RabbitMqPublisherConfigTest {

    @Test
    @DisplayName("defaults point at guest@localhost:5672/ with documented timeouts")
    void defaults() {
        RabbitMqPublisherConfig config = RabbitMqPublisherConfig.ofDefaults();
        assertThat(config.host()).isEqualTo("localhost");
        assertThat(config.port()).isEqualTo(5672);
        assertThat(config.virtualHost()).isEqualTo("/");
        assertThat(config.username()).isEqualTo("guest");
        assertThat(config.connectionName()).isEqualTo(RabbitMqPublisherConfig.DEFAULT_CONNECTION_NAME);
        assertThat(config.confirmTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(config.maxConcurrentBatches()).isEqualTo(8);
        assertThat(config.recoveryInterval()).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    @DisplayName("a URI sets host, port, virtual host and credentials")
    void uri() {
        RabbitMqPublisherConfig config = RabbitMqPublisherConfig.builder()
                .uri("amqp://orders:s3cret@rabbit.internal:5673/shop%2Fprod")
                .build();
        assertThat(config.host()).isEqualTo("rabbit.internal");
        assertThat(config.port()).isEqualTo(5673);
        assertThat(config.virtualHost()).isEqualTo("shop/prod");
        assertThat(config.username()).isEqualTo("orders");
        assertThat(config.password()).isEqualTo("s3cret");
        assertThat(config.toString()).doesNotContain("s3cret");
    }

    @Test
    @DisplayName("a URI together with host settings is rejected, naming rabbitmq.uri")
    void uriAndPieces() {
        assertThatThrownBy(() -> RabbitMqPublisherConfig.builder()
                        .uri("amqp://localhost")
                        .port(5673)
                        .build())
                .isInstanceOfSatisfying(
                        InvalidConfigurationException.class,
                        e -> assertThat(e.setting()).isEqualTo("rabbitmq.uri"))
                .hasMessageContaining("port");
    }

    @Test
    @DisplayName("an unparseable URI is rejected, naming rabbitmq.uri")
    void badUri() {
        assertThatThrownBy(() -> RabbitMqPublisherConfig.builder()
                        .uri("http://localhost")
                        .build())
                .isInstanceOfSatisfying(
                        InvalidConfigurationException.class,
                        e -> assertThat(e.setting()).isEqualTo("rabbitmq.uri"));
    }

    @Test
    @DisplayName("amqps:// connects with TLS on 5671, validating the certificate and the host name")
    void amqps() {
        RabbitMqPublisherConfig config =
                RabbitMqPublisherConfig.builder().uri("amqps://rabbit.internal").build();
        assertThat(config.tls()).isTrue();
        assertThat(config.port()).isEqualTo(5671);
        assertThat(config.clientProperties())
                .containsEntry("ssl.validate.server.certificate", "true")
                .containsEntry("ssl.verify.hostname", "true");
        assertThat(RabbitMqPublisher.connectionFactory(config).isSSL()).isTrue();
        assertThat(config.describeBroker()).contains("TLS");
    }

    @Test
    @DisplayName("client properties override the URI and reach the connection factory; the password is never shown")
    void clientProperties() {
        RabbitMqPublisherConfig config = RabbitMqPublisherConfig.builder()
                .uri("amqp://nobody:wrong@rabbit.internal:5672/%2F")
                .property("username", "orders")
                .property("password", "s3cret")
                .property("virtual.host", "shop")
                .property("connection.heartbeat", "7")
                .property("connection.channel.max", "64")
                .property("client.properties.deployment", "eu-1")
                .build();
        assertThat(config.username()).isEqualTo("orders");
        assertThat(config.password()).isEqualTo("s3cret");
        assertThat(config.virtualHost()).isEqualTo("shop");
        assertThat(config.heartbeat()).isEqualTo(Duration.ofSeconds(7));
        com.rabbitmq.client.ConnectionFactory factory = RabbitMqPublisher.connectionFactory(config);
        assertThat(factory.getUsername()).isEqualTo("orders");
        assertThat(factory.getVirtualHost()).isEqualTo("shop");
        assertThat(factory.getRequestedHeartbeat()).isEqualTo(7);
        assertThat(factory.getRequestedChannelMax()).isEqualTo(64);
        assertThat(factory.getClientProperties()).containsEntry("deployment", "eu-1");
        assertThat(factory.isAutomaticRecoveryEnabled()).isTrue();
        assertThat(factory.isTopologyRecoveryEnabled()).isFalse();
        assertThat(config.toString()).doesNotContain("s3cret").contains("connection.channel.max=64");
    }

    @Test
    @DisplayName(
            "unknown client settings, the ones the publisher owns, and values the client rejects are refused by name")
    void refusedClientProperties() {
        assertSetting(
                RabbitMqPublisherConfig.builder().property("conection.heartbeat", "7"), "rabbitmq.conection.heartbeat");
        assertSetting(
                RabbitMqPublisherConfig.builder().property("topology.recovery.enabled", "true"),
                "rabbitmq.topology.recovery.enabled");
        assertSetting(
                RabbitMqPublisherConfig.builder().property("connection.recovery.enabled", "false"),
                "rabbitmq.connection.recovery.enabled");
        assertSetting(
                RabbitMqPublisherConfig.builder().property("connection.heartbeat", "often"),
                "rabbitmq.connection.heartbeat");
        assertSetting(
                RabbitMqPublisherConfig.builder()
                        .property("ssl.enabled", "true")
                        .property("ssl.trust.store", "/no/such/trust.p12"),
                "rabbitmq.ssl");
    }

    @Test
    @DisplayName("each unusable value is rejected, naming its setting")
    void invalidValues() {
        assertSetting(RabbitMqPublisherConfig.builder().port(0), "rabbitmq.port");
        assertSetting(RabbitMqPublisherConfig.builder().host(" "), "rabbitmq.host");
        assertSetting(RabbitMqPublisherConfig.builder().virtualHost(""), "rabbitmq.virtualHost");
        assertSetting(RabbitMqPublisherConfig.builder().username(""), "rabbitmq.username");
        assertSetting(RabbitMqPublisherConfig.builder().connectionName(""), "rabbitmq.connectionName");
        assertSetting(RabbitMqPublisherConfig.builder().confirmTimeout(Duration.ZERO), "rabbitmq.confirmTimeout");
        assertSetting(
                RabbitMqPublisherConfig.builder().connectionTimeout(Duration.ofSeconds(-1)),
                "rabbitmq.connectionTimeout");
        assertSetting(RabbitMqPublisherConfig.builder().recoveryInterval(Duration.ZERO), "rabbitmq.recoveryInterval");
        assertSetting(RabbitMqPublisherConfig.builder().heartbeat(Duration.ofSeconds(-1)), "rabbitmq.heartbeat");
        assertSetting(RabbitMqPublisherConfig.builder().maxConcurrentBatches(0), "rabbitmq.maxConcurrentBatches");
        assertSetting(RabbitMqPublisherConfig.builder().maxConcurrentBatches(65), "rabbitmq.maxConcurrentBatches");
    }

    @Test
    @DisplayName("a frame limit too small for the properties of the largest accepted event is refused, naming "
            + "connection.frame.max and the size it needs; no limit (0) and the broker's default pass")
    void frameMaxHoldsTheLargestEvent() {
        assertThatThrownBy(() -> RabbitMqPublisherConfig.builder()
                        .property("connection.frame.max", "4096")
                        .build())
                .isInstanceOfSatisfying(
                        InvalidConfigurationException.class,
                        e -> assertThat(e.setting()).isEqualTo("rabbitmq.connection.frame.max"))
                .hasMessageContaining("4096")
                .hasMessageContaining("at least 65536");
        RabbitMqPublisherConfig.builder().property("connection.frame.max", "0").build();
        RabbitMqPublisherConfig.builder()
                .property("connection.frame.max", "131072")
                .build();
    }

    private static void assertSetting(RabbitMqPublisherConfig.Builder builder, String setting) {
        assertThatThrownBy(builder::build)
                .isInstanceOfSatisfying(
                        InvalidConfigurationException.class,
                        e -> assertThat(e.setting()).isEqualTo(setting));
    }
}
