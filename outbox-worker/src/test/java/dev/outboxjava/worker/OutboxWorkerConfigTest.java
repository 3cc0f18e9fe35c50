package dev.outboxjava.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxjava.core.relay.RelayConfig;
import dev.outboxjava.core.relay.SweeperConfig;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("The worker's configuration builder")
class OutboxWorkerConfigTest {

    @Test
    @DisplayName("names every unusable value by the builder method that set it, not by a setting of an application")
    void namesTheBuilderMethods() {
        assertThatThrownBy(() -> OutboxWorkerConfig.builder()
                        .relayThreads(0)
                        .backoffInitial(Duration.ofSeconds(2))
                        .backoffMax(Duration.ofSeconds(1))
                        .relay(new RelayConfig(100, Duration.ofMinutes(1)))
                        .sweeper(new SweeperConfig(Duration.ofMinutes(1), 1000, 10))
                        .build())
                .isInstanceOf(InvalidSettingsException.class)
                .hasMessageContaining("3 problems")
                .hasMessageContaining("OutboxWorkerConfig.builder().relayThreads(...): must be between 1 and 64, was 0")
                .hasMessageContaining("OutboxWorkerConfig.builder().backoffMax(...): must be at least "
                        + "OutboxWorkerConfig.builder().backoffInitial(...) (2s), was 1s")
                .hasMessageContaining("OutboxWorkerConfig.builder().sweeper(...).leaseTimeout(): must be longer than "
                        + "OutboxWorkerConfig.builder().relay(...).publishTimeout() (1m), was 1m")
                .hasMessageNotContaining("outbox.")
                .hasMessageNotContaining("OUTBOX_");
    }

    @Test
    @DisplayName("spells a setting's name as its builder call")
    void settingName() {
        assertThat(OutboxWorkerConfig.setting("pollInterval"))
                .isEqualTo("OutboxWorkerConfig.builder().pollInterval(...)");
    }
}
