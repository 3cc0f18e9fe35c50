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
        RabbitMqPublisherConfig config = RabbitMqPublisherConfig.custom()
                .uri("amqp://orders:s3cret@rabbit.internal:5673/shop%2Fprod").build();
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
        assertThatThrownBy(() -> RabbitMqPublisherConfig.custom().uri("amqp://localhost").port(5673).build())
                .isInstanceOfSatisfying(InvalidConfigurationException.class,
                        e -> assertThat(e.setting()).isEqualTo("rabbitmq.uri"))
                .hasMessageContaining("port");
    }

    @Test
    @DisplayName("an unparseable URI or amqps is rejected, naming rabbitmq.uri")
    void badUri() {
        assertThatThrownBy(() -> RabbitMqPublisherConfig.custom().uri("http://localhost").build())
                .isInstanceOfSatisfying(InvalidConfigurationException.class,
                        e -> assertThat(e.setting()).isEqualTo("rabbitmq.uri"));
        assertThatThrownBy(() -> RabbitMqPublisherConfig.custom().uri("amqps://localhost").build())
                .isInstanceOfSatisfying(InvalidConfigurationException.class,
                        e -> assertThat(e.setting()).isEqualTo("rabbitmq.uri"));
    }

    @Test
    @DisplayName("each unusable value is rejected, naming its setting")
    void invalidValues() {
        assertSetting(RabbitMqPublisherConfig.custom().port(0), "rabbitmq.port");
        assertSetting(RabbitMqPublisherConfig.custom().host(" "), "rabbitmq.host");
        assertSetting(RabbitMqPublisherConfig.custom().virtualHost(""), "rabbitmq.virtualHost");
        assertSetting(RabbitMqPublisherConfig.custom().username(""), "rabbitmq.username");
        assertSetting(RabbitMqPublisherConfig.custom().connectionName(""), "rabbitmq.connectionName");
        assertSetting(RabbitMqPublisherConfig.custom().confirmTimeout(Duration.ZERO), "rabbitmq.confirmTimeout");
        assertSetting(RabbitMqPublisherConfig.custom().connectionTimeout(Duration.ofSeconds(-1)),
                "rabbitmq.connectionTimeout");
        assertSetting(RabbitMqPublisherConfig.custom().recoveryInterval(Duration.ZERO), "rabbitmq.recoveryInterval");
        assertSetting(RabbitMqPublisherConfig.custom().heartbeat(Duration.ofSeconds(-1)), "rabbitmq.heartbeat");
        assertSetting(RabbitMqPublisherConfig.custom().maxConcurrentBatches(0), "rabbitmq.maxConcurrentBatches");
        assertSetting(RabbitMqPublisherConfig.custom().maxConcurrentBatches(65), "rabbitmq.maxConcurrentBatches");
    }

    private static void assertSetting(RabbitMqPublisherConfig.Builder builder, String setting) {
        assertThatThrownBy(builder::build).isInstanceOfSatisfying(InvalidConfigurationException.class,
                e -> assertThat(e.setting()).isEqualTo(setting));
    }
}
