package dev.outboxjava.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.relayapp.BrokerKind;
import dev.outboxjava.relayapp.ConfigSource;
import dev.outboxjava.relayapp.RelayAppConfig;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The demo's relay settings")
class RelayConfigTest {

    @Test
    @DisplayName("are accepted by the worker: every key is known and every value valid (Kafka)")
    void kafkaSettingsLoad() {
        RelayAppConfig settings = RelayAppConfig.load(ConfigSource.environment(DemoRelays.settings(
                "jdbc:postgresql://127.0.0.1:5432/demo",
                "postgres",
                "postgres",
                "outbox_demo_1",
                BrokerKind.KAFKA,
                "127.0.0.1:9092",
                "",
                "relay-test")));

        assertThat(settings.requireBroker().kind()).isEqualTo(BrokerKind.KAFKA);
        assertThat(settings.requireDatabase().url()).endsWith("?currentSchema=outbox_demo_1");
        assertThat(settings.requireDatabase().table()).isEqualTo("outbox_demo_1.outbox_events");
    }

    @Test
    @DisplayName(
            "are accepted by the worker for RabbitMQ, and the lease timeout lets a new relay take over within seconds")
    void rabbitMqSettingsLoad() {
        RelayAppConfig settings = RelayAppConfig.load(ConfigSource.environment(DemoRelays.settings(
                "jdbc:postgresql://127.0.0.1:5432/demo?ssl=false",
                "postgres",
                "postgres",
                "outbox_demo_2",
                BrokerKind.RABBITMQ,
                "",
                "amqp://guest:guest@127.0.0.1:5672/%2F",
                "relay-test")));

        assertThat(settings.requireBroker().kind()).isEqualTo(BrokerKind.RABBITMQ);
        assertThat(settings.requireDatabase().url()).endsWith("?ssl=false&currentSchema=outbox_demo_2");
        assertThat(settings.worker().sweeper().leaseTimeout())
                .isEqualTo(Duration.ofSeconds(DemoRelays.LEASE_TIMEOUT_SECONDS));
        assertThat(settings.worker().relay().publishTimeout())
                .isLessThan(settings.worker().sweeper().leaseTimeout());
    }
}
