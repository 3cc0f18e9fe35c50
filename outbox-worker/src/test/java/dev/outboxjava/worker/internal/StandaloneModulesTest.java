package dev.outboxjava.worker.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.inject.Guice;
import dev.outboxjava.rabbitmq.RabbitMqPublisherConfig;
import dev.outboxjava.worker.BrokerConfig;
import dev.outboxjava.worker.BrokerKind;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The standalone process's broker module")
class StandaloneModulesTest {

    private static final BrokerConfig RABBITMQ = new BrokerConfig(BrokerKind.RABBITMQ, "", "outbox-relay",
            "amqp://guest:guest@127.0.0.1:5672/%2F", "outbox-relay");

    private static RabbitMqPublisherConfig rabbitMqConfig(int relayThreads) {
        // only the configuration is asked for: no publisher is created, nothing connects
        return Guice.createInjector(StandaloneModules.brokerModule(RABBITMQ, relayThreads))
                .getInstance(RabbitMqPublisherConfig.class);
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
