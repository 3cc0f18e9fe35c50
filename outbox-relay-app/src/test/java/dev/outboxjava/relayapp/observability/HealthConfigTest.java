package dev.outboxjava.relayapp.observability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxjava.relayapp.ConfigSource;
import dev.outboxjava.relayapp.RelayAppConfig;
import dev.outboxjava.worker.HealthConfig;
import dev.outboxjava.worker.InvalidSettingsException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The observability keys are read and validated like every other worker setting. */
@DisplayName("Health and log-summary settings")
class HealthConfigTest {

    @Test
    @DisplayName("defaults: 5m lag, 10m open transaction, inbox outbox_inbox, summary every 60s")
    void defaults() {
        RelayAppConfig settings = RelayAppConfig.load(ConfigSource.environment(Map.of()));
        assertThat(settings.health()).isEqualTo(HealthConfig.ofDefaults());
        assertThat(settings.worker().logSummaryInterval()).isEqualTo(Duration.ofSeconds(60));
        assertThat(settings.worker().maxBrokerOutage()).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    @DisplayName("the broker outage readiness tolerates: from the environment, 0s allowed, never negative")
    void maxBrokerOutage() {
        assertThat(RelayAppConfig.load(ConfigSource.environment(Map.of("OUTBOX_HEALTH_MAX_BROKER_OUTAGE", "0s")))
                        .worker()
                        .maxBrokerOutage())
                .isZero();
        assertThat(RelayAppConfig.load(ConfigSource.environment(Map.of("OUTBOX_HEALTH_MAX_BROKER_OUTAGE", "2m")))
                        .worker()
                        .maxBrokerOutage())
                .isEqualTo(Duration.ofMinutes(2));
        assertThatThrownBy(() ->
                        RelayAppConfig.load(ConfigSource.environment(Map.of("OUTBOX_HEALTH_MAX_BROKER_OUTAGE", "-5s"))))
                .isInstanceOfSatisfying(
                        InvalidSettingsException.class,
                        e -> assertThat(e.problems())
                                .extracting(InvalidSettingsException.Problem::key)
                                .contains("outbox.health.max.broker.outage (OUTBOX_HEALTH_MAX_BROKER_OUTAGE)"));
    }

    @Test
    @DisplayName("values from the environment; 0s switches a threshold off; inbox table none")
    void values() {
        RelayAppConfig settings = RelayAppConfig.load(ConfigSource.environment(Map.of(
                "OUTBOX_HEALTH_MAX_LAG",
                "30s",
                "OUTBOX_HEALTH_MAX_XMIN_AGE",
                "0s",
                "OUTBOX_HEALTH_INBOX_TABLE",
                "none",
                "OUTBOX_LOG_SUMMARY_INTERVAL",
                "0s")));
        assertThat(settings.health())
                .isEqualTo(new HealthConfig(Duration.ofSeconds(30), Duration.ZERO, Optional.empty()));
        assertThat(settings.worker().logSummaryInterval()).isZero();
    }

    @Test
    @DisplayName("bad values are reported together, each by its key")
    void badValues() {
        assertThatThrownBy(() -> RelayAppConfig.load(ConfigSource.environment(Map.of(
                        "OUTBOX_HEALTH_MAX_LAG",
                        "soon",
                        "OUTBOX_HEALTH_MAX_XMIN_AGE",
                        "10 minutes",
                        "OUTBOX_HEALTH_INBOX_TABLE",
                        "Inbox; drop table x",
                        "OUTBOX_LOG_SUMMARY_INTERVAL",
                        "often"))))
                .isInstanceOfSatisfying(
                        InvalidSettingsException.class,
                        e -> assertThat(e.problems())
                                .extracting(InvalidSettingsException.Problem::key)
                                .contains(
                                        "outbox.health.max.lag (OUTBOX_HEALTH_MAX_LAG)",
                                        "outbox.health.max.xmin.age (OUTBOX_HEALTH_MAX_XMIN_AGE)",
                                        "outbox.health.inbox.table (OUTBOX_HEALTH_INBOX_TABLE)",
                                        "outbox.log.summary.interval (OUTBOX_LOG_SUMMARY_INTERVAL)"));
    }
}
