package dev.outboxjava.relayapp.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.inject.Guice;
import dev.outboxjava.kafka.KafkaPublisherConfig;
import dev.outboxjava.rabbitmq.RabbitMqPublisherConfig;
import dev.outboxjava.relayapp.BrokerConfig;
import dev.outboxjava.relayapp.BrokerKind;
import dev.outboxjava.relayapp.ConfigSource;
import dev.outboxjava.relayapp.RelayAppConfig;
import dev.outboxjava.worker.InvalidSettingsException;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The standalone process's broker module")
class StandaloneModulesTest {

    private static final BrokerConfig RABBITMQ = new BrokerConfig(
            BrokerKind.RABBITMQ, "", "outbox-relay", "amqp://guest:guest@127.0.0.1:5672/%2F", "outbox-relay");

    private static RabbitMqPublisherConfig rabbitMqConfig(int relayThreads) {
        // only the configuration is asked for: no publisher is created, nothing connects
        return Guice.createInjector(StandaloneModules.brokerModule(RABBITMQ, relayThreads))
                .getInstance(RabbitMqPublisherConfig.class);
    }

    @Test
    @DisplayName("hands every OUTBOX_KAFKA_* / OUTBOX_RABBITMQ_* client setting to the publisher's configuration")
    void clientSettingsReachThePublisherConfiguration() {
        RelayAppConfig kafka = RelayAppConfig.load(ConfigSource.environment(Map.of(
                "OUTBOX_BROKER",
                "kafka",
                "OUTBOX_KAFKA_BOOTSTRAP_SERVERS",
                "k1:9092",
                "OUTBOX_KAFKA_MAX_BLOCK_MS",
                "4000",
                "OUTBOX_KAFKA_SECURITY_PROTOCOL",
                "SASL_SSL",
                "OUTBOX_KAFKA_SASL_MECHANISM",
                "PLAIN")));
        KafkaPublisherConfig producer = Guice.createInjector(StandaloneModules.brokerModule(kafka.requireBroker(), 1))
                .getInstance(KafkaPublisherConfig.class);
        assertThat(producer.producerProperties())
                .containsEntry("max.block.ms", "4000")
                .containsEntry("security.protocol", "SASL_SSL")
                .containsEntry("sasl.mechanism", "PLAIN")
                .containsEntry("bootstrap.servers", "k1:9092");

        RelayAppConfig rabbit = RelayAppConfig.load(ConfigSource.environment(Map.of(
                "OUTBOX_BROKER",
                "rabbitmq",
                "OUTBOX_RABBITMQ_URI",
                "amqp://nobody:x@rabbit:5672/%2F",
                "OUTBOX_RABBITMQ_USERNAME",
                "orders",
                "OUTBOX_RABBITMQ_PASSWORD",
                "s3cret",
                "OUTBOX_RABBITMQ_VIRTUAL_HOST",
                "shop",
                "OUTBOX_RABBITMQ_CONNECTION_HEARTBEAT",
                "7")));
        RabbitMqPublisherConfig amqp = Guice.createInjector(StandaloneModules.brokerModule(rabbit.requireBroker(), 1))
                .getInstance(RabbitMqPublisherConfig.class);
        assertThat(amqp.username()).isEqualTo("orders");
        assertThat(amqp.password()).isEqualTo("s3cret");
        assertThat(amqp.virtualHost()).isEqualTo("shop");
        assertThat(amqp.heartbeat()).isEqualTo(Duration.ofSeconds(7));
        assertThat(rabbit.requireBroker().toString()).doesNotContain("s3cret").doesNotContain(":x@");
    }

    @Test
    @DisplayName("refuses, naming the key, client settings that do not exist or that the library must own")
    void refusedClientSettings() {
        assertThatThrownBy(() -> RelayAppConfig.load(ConfigSource.environment(Map.of(
                        "OUTBOX_BROKER",
                        "kafka",
                        "OUTBOX_KAFKA_BOOTSTRAP_SERVERS",
                        "k1:9092",
                        "OUTBOX_KAFKA_MAX_BLOK_MS",
                        "4000",
                        "OUTBOX_RELAY_BATCH_SIZE",
                        "0"))))
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("outbox.kafka.max.blok.ms (OUTBOX_KAFKA_MAX_BLOK_MS): is not a Kafka producer")
                .hasMessageContaining("OUTBOX_RELAY_BATCH_SIZE");
        assertThatThrownBy(() -> RelayAppConfig.load(ConfigSource.map(Map.of(
                        "outbox.broker",
                        "kafka",
                        "outbox.kafka.bootstrap.servers",
                        "k1:9092",
                        "outbox.kafka.enable.idempotence",
                        "false"))))
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("outbox.kafka.enable.idempotence (OUTBOX_KAFKA_ENABLE_IDEMPOTENCE)");
        assertThatThrownBy(() -> RelayAppConfig.load(ConfigSource.environment(
                        Map.of("OUTBOX_BROKER", "rabbitmq", "OUTBOX_RABBITMQ_CONNECTION_RECOVERY_ENABLED", "false"))))
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("OUTBOX_RABBITMQ_CONNECTION_RECOVERY_ENABLED");
    }

    @Test
    @DisplayName("gives the RabbitMQ publisher a channel per relay thread, never fewer than its default")
    void rabbitMqConcurrencyFollowsRelayThreads() {
        assertThat(rabbitMqConfig(1).maxConcurrentBatches())
                .isEqualTo(RabbitMqPublisherConfig.DEFAULT_MAX_CONCURRENT_BATCHES);
        assertThat(rabbitMqConfig(24).maxConcurrentBatches()).isEqualTo(24);
        assertThat(rabbitMqConfig(64).maxConcurrentBatches()).isEqualTo(64);
    }
}
