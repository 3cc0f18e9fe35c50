package dev.outboxjava.relayapp.observability;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.outboxjava.core.memory.InMemoryOutboxStore;
import dev.outboxjava.postgres.StoreLayout;
import dev.outboxjava.postgres.health.PostgresHealthProbe;
import dev.outboxjava.relayapp.internal.StandaloneModules;
import dev.outboxjava.testkit.RecordingPublisher;
import dev.outboxjava.worker.HealthConfig;
import dev.outboxjava.worker.OutboxWorker;
import dev.outboxjava.worker.observability.DatabaseHealthMonitor;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The shipped Grafana dashboard and Prometheus alert rules reference only metrics (and labels) the
 * worker really exports: the worker runs (in memory) with the standalone process's Prometheus
 * registry and the database health monitor's gauges, its {@code /metrics} text is scraped, and every
 * {@code outbox_*} name in every expression must be among the scraped series.
 */
@DisplayName("Dashboard and alert rules")
class DashboardMetricsTest {

    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{([^}]*)})?\\s");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"");
    /** A metric reference in PromQL, with its label matchers if any. */
    private static final Pattern REFERENCE = Pattern.compile("\\b(outbox_[a-zA-Z0-9_]+)(\\{[^}]*})?");

    private static final Set<String> PROMETHEUS_LABELS = Set.of("le", "job", "instance", "quantile");

    private static Map<String, Set<String>> exported;

    @BeforeAll
    static void scrape() {
        PrometheusMeterRegistry registry = StandaloneModules.prometheus();
        // the meters exactly as the worker registers them when it starts ...
        try (OutboxWorker worker = OutboxWorker.builder()
                .store(new InMemoryOutboxStore())
                .publisher(new RecordingPublisher())
                .meterRegistry(registry)
                .build()) {
            worker.start();
            // ... plus the database health gauges of DatabaseHealthModule (never polled here)
            new DatabaseHealthMonitor(
                    new InMemoryOutboxStore(),
                    PostgresHealthProbe.create(
                            new PGSimpleDataSource(),
                            "outbox_events",
                            StoreLayout.APPEND_LOG,
                            Optional.of("outbox_inbox")),
                    HealthConfig.ofDefaults(),
                    Clock.systemUTC(),
                    registry,
                    Duration.ofSeconds(15));
            exported = parse(registry.scrape());
        }
    }

    private static Map<String, Set<String>> parse(String scrape) {
        Map<String, Set<String>> series = new HashMap<>();
        for (String line : scrape.split("\n")) {
            Matcher sample = SAMPLE.matcher(line);
            if (line.startsWith("#") || !sample.find()) {
                continue;
            }
            Set<String> labels = series.computeIfAbsent(sample.group(1), name -> new HashSet<>());
            if (sample.group(2) != null) {
                Matcher label = LABEL.matcher(sample.group(2));
                while (label.find()) {
                    labels.add(label.group(1));
                }
            }
        }
        return series;
    }

    @Test
    @DisplayName("the scrape has the worker's meters under their Prometheus names")
    void scrapeHasTheMeters() {
        assertThat(exported)
                .containsKeys(
                        "outbox_events_published_total",
                        "outbox_events_failed_total",
                        "outbox_events_oldest_pending_age_seconds",
                        "outbox_relay_batch_duration_seconds_bucket",
                        "outbox_db_oldest_transaction_age_seconds",
                        "outbox_table_dead_tuples",
                        "outbox_inbox_size_bytes",
                        "outbox_events_rows");
    }

    @Test
    @DisplayName("every metric and label the Grafana dashboard queries is exported")
    void dashboardReferencesExportedMetrics() throws IOException {
        JsonNode dashboard = new ObjectMapper().readTree(resource("dashboards/grafana-dashboard.json"));
        List<String> expressions = new ArrayList<>();
        dashboard.findValues("expr").forEach(expr -> expressions.add(expr.asText()));
        for (JsonNode variable : dashboard.path("templating").path("list")) {
            if (variable.path("type").asText().equals("query")) {
                expressions.add(variable.path("query").asText());
            }
        }
        assertThat(expressions).hasSizeGreaterThan(10);
        assertEveryReferenceExported("grafana-dashboard.json", expressions);
    }

    @Test
    @DisplayName("every metric and label the Prometheus alert rules use is exported")
    void alertRulesReferenceExportedMetrics() throws IOException {
        JsonNode rules = new ObjectMapper(new YAMLFactory()).readTree(resource("dashboards/prometheus-alerts.yml"));
        List<String> expressions = new ArrayList<>();
        int alerts = 0;
        for (JsonNode group : rules.path("groups")) {
            for (JsonNode rule : group.path("rules")) {
                alerts++;
                assertThat(rule.path("alert").asText()).as("rule name").isNotBlank();
                assertThat(rule.path("expr").asText())
                        .as("expr of " + rule.path("alert").asText())
                        .isNotBlank();
                expressions.add(rule.path("expr").asText());
            }
        }
        assertThat(alerts).isGreaterThanOrEqualTo(6);
        assertEveryReferenceExported("prometheus-alerts.yml", expressions);
    }

    private static void assertEveryReferenceExported(String file, List<String> expressions) {
        Set<String> unknown = new TreeSet<>();
        for (String expression : expressions) {
            Matcher reference = REFERENCE.matcher(expression);
            boolean any = false;
            while (reference.find()) {
                any = true;
                String metric = reference.group(1);
                if (!exported.containsKey(metric)) {
                    unknown.add(metric);
                    continue;
                }
                if (reference.group(2) != null) {
                    Matcher label = LABEL.matcher(reference
                            .group(2)
                            .replace("=~\"", "=\"")
                            .replace("!=\"", "=\"")
                            .replace("!~\"", "=\""));
                    while (label.find()) {
                        if (!exported.get(metric).contains(label.group(1))
                                && !PROMETHEUS_LABELS.contains(label.group(1))) {
                            unknown.add(metric + "{" + label.group(1) + "}");
                        }
                    }
                }
            }
            assertThat(any)
                    .as(file + ": expression references no outbox metric: " + expression)
                    .isTrue();
        }
        assertThat(unknown)
                .as(file + " references metrics/labels the worker does not export; exported: "
                        + new TreeSet<>(exported.keySet()))
                .isEmpty();
    }

    private static InputStream resource(String name) {
        InputStream in = DashboardMetricsTest.class.getClassLoader().getResourceAsStream(name);
        assertThat(in).as(name + " on the classpath").isNotNull();
        return in;
    }
}
