package dev.outboxjava.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.Ordering;
import dev.outboxjava.core.relay.RelayConfig;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.worker.HealthConfig;
import dev.outboxjava.worker.OutboxWorkerConfig;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The outbox.* properties")
class OutboxPropertiesTest {

    @Test
    @DisplayName("default to the library's defaults, on both sides")
    void defaults() {
        OutboxProperties properties = new OutboxProperties();
        OutboxWorkerConfig worker = properties.worker();
        OutboxWorkerConfig library =
                OutboxWorkerConfig.builder().relay(RelayConfig.ofDefaults()).build();

        assertThat(worker.toString()).isEqualTo(library.toString());
        assertThat(worker.maxBrokerOutage()).isEqualTo(library.maxBrokerOutage());
        assertThat(worker.relay()).isEqualTo(library.relay());
        assertThat(properties.postgres().toString())
                .isEqualTo(PostgresOutboxConfig.ofDefaults().toString());
        HealthConfig health = properties.healthConfig();
        assertThat(health.maxLag()).isEqualTo(HealthConfig.DEFAULT_MAX_LAG);
        assertThat(health.maxXminAge()).isEqualTo(HealthConfig.DEFAULT_MAX_XMIN_AGE);
    }

    @Test
    @DisplayName("leave the batch size to the ordering unless it is set")
    void batchSizeFollowsTheOrdering() {
        OutboxProperties properties = new OutboxProperties();
        properties.getOrdering().setMode(Ordering.Mode.PER_KEY);

        assertThat(properties.worker().relay()).isEqualTo(RelayConfig.ofDefaults(properties.ordering()));
        assertThat(properties.worker().relay().batchSize()).isEqualTo(RelayConfig.DEFAULT_PER_KEY_BATCH_SIZE);

        properties.getRelay().setBatchSize(1000);
        assertThat(properties.worker().relay().batchSize()).isEqualTo(1000);
    }
}
