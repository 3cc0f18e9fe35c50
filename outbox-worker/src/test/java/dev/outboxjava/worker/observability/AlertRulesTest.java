package dev.outboxjava.worker.observability;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.outboxjava.worker.testsupport.Promtool;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped alert rules (dashboards/prometheus-alerts.yml) under their unit tests
 * (dashboards/prometheus-alerts-test.yml) with {@code promtool test rules}: every alert has a case
 * where it fires and one where it stays quiet, and promtool agrees with each.
 */
@DisplayName("Alert rules under promtool")
class AlertRulesTest {

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    @Test
    @DisplayName("every shipped alert has a unit test where it fires and one where it stays quiet")
    void everyAlertIsTestedBothWays(@TempDir Path dir) throws Exception {
        JsonNode rules = YAML.readTree(
                Promtool.copyResource("dashboards/prometheus-alerts.yml", dir).toFile());
        JsonNode tests = YAML.readTree(Promtool.copyResource("dashboards/prometheus-alerts-test.yml", dir)
                .toFile());
        Set<String> alerts = new TreeSet<>();
        rules.path("groups")
                .forEach(group -> group.path("rules")
                        .forEach(rule -> alerts.add(rule.path("alert").asText())));
        Set<String> fires = new TreeSet<>();
        Set<String> quiet = new TreeSet<>();
        for (JsonNode test : tests.path("tests")) {
            for (JsonNode check : test.path("alert_rule_test")) {
                (check.path("exp_alerts").isEmpty() ? quiet : fires)
                        .add(check.path("alertname").asText());
            }
        }
        assertThat(alerts).hasSizeGreaterThanOrEqualTo(12);
        assertThat(fires).as("alerts with a case where they fire").containsAll(alerts);
        assertThat(quiet).as("alerts with a case where they stay quiet").containsAll(alerts);
    }

    @Test
    @DisplayName("promtool test rules passes on the shipped rules")
    void promtoolPasses(@TempDir Path dir) throws Exception {
        Promtool.copyResource("dashboards/prometheus-alerts.yml", dir);
        Path tests = Promtool.copyResource("dashboards/prometheus-alerts-test.yml", dir);
        Promtool.testRules(tests);
    }
}
