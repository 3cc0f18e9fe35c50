package dev.outboxjava.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

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
        OutboxWorkerConfig library = OutboxWorkerConfig.ofDefaults();

        assertThat(worker.toString()).isEqualTo(library.toString());
        assertThat(worker.maxBrokerOutage()).isEqualTo(library.maxBrokerOutage());
        assertThat(worker.relay()).isEqualTo(library.relay());
        assertThat(properties.postgres().toString())
                .isEqualTo(PostgresOutboxConfig.ofDefaults().toString());
        HealthConfig health = properties.healthConfig();
        assertThat(health.maxLag()).isEqualTo(HealthConfig.DEFAULT_MAX_LAG);
        assertThat(health.maxXminAge()).isEqualTo(HealthConfig.DEFAULT_MAX_XMIN_AGE);
    }
}
