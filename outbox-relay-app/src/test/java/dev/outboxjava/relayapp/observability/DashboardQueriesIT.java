package dev.outboxjava.relayapp.observability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.google.inject.Guice;
import com.google.inject.Stage;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.DeadLetterMark;
import dev.outboxjava.core.port.RetryMark;
import dev.outboxjava.postgres.OutboxWriter;
import dev.outboxjava.relayapp.ConfigSource;
import dev.outboxjava.relayapp.HttpConfig;
import dev.outboxjava.relayapp.RelayAppConfig;
import dev.outboxjava.relayapp.internal.HealthHttpServer;
import dev.outboxjava.relayapp.internal.StandaloneModules;
import dev.outboxjava.testkit.postgres.PostgresFixture;
import dev.outboxjava.testkit.rabbitmq.RabbitMqFixture;
import dev.outboxjava.worker.OutboxWorker;
import dev.outboxjava.worker.testsupport.Promtool;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Grafana dashboard's queries against the real metric output of two standalone workers of one
 * table: both are assembled as the process assembles them ({@link StandaloneModules}, PostgreSQL,
 * RabbitMQ), each serves {@code /metrics}, both are scraped, and the samples become the input series of
 * a {@code promtool test rules} file that evaluates the dashboard's expressions:
 * <ul>
 *   <li>the backlog figures the test put in the table (4 pending: 3 scheduled, 1 retrying; 2 dead letters)
 *       show once, not once per worker;</li>
 *   <li>every expression over table-wide figures gives what it gives for one worker alone.</li>
 * </ul>
 */
@DisplayName("Dashboard queries over two workers")
class DashboardQueriesIT {

    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{[^}]*})?\\s+(\\S+)$");
    private static final Pattern METRIC = Pattern.compile("\\b(outbox_[a-zA-Z0-9_]+)");
    /** Figures of the table (and its database) that every worker of the table exports alike. */
    private static final Pattern TABLE_WIDE = Pattern.compile("outbox_events_(pending|in_flight|dead_letters|eligible"
            + "|retrying|scheduled|held|rows|oldest_pending_age_seconds|oldest_eligible_age_seconds)|outbox_table_.*"
            + "|outbox_db_.*|outbox_inbox_.*");

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final int STEPS = 10;

    private OwnDatabase database;
    private RabbitMqFixture rabbit;
    private final List<AutoCloseable> opened = new ArrayList<>();

    @BeforeEach
    void fresh() {
        database = new OwnDatabase(PostgresFixture.shared());
        rabbit = RabbitMqFixture.start();
    }

    @AfterEach
    void cleanUp() throws Exception {
        Collections.reverse(opened);
        for (AutoCloseable closeable : opened) {
            closeable.close();
        }
        rabbit.close();
        database.close();
    }

    /** A standalone worker of the test's table; returns the port of its /metrics. */
    private int startWorker(String name) {
        Map<String, String> environment = Map.of(
                "OUTBOX_DB_URL",
                database.url,
                "OUTBOX_DB_USER",
                database.postgres.user(),
                "OUTBOX_DB_PASSWORD",
                database.postgres.password(),
                "OUTBOX_TABLE",
                database.table,
                "OUTBOX_BROKER",
                "rabbitmq",
                "OUTBOX_RABBITMQ_URI",
                rabbit.uri(),
                "OUTBOX_RABBITMQ_CONNECTION_NAME",
                "dashboard-it-" + name,
                "OUTBOX_RELAY_WAKEUP",
                "none",
                "OUTBOX_METRICS_POLL_INTERVAL",
                "100ms",
                "OUTBOX_HEALTH_INBOX_TABLE",
                database.inboxTable);
        RelayAppConfig settings = RelayAppConfig.load(ConfigSource.environment(environment));
        PrometheusMeterRegistry registry =
                StandaloneModules.prometheus(settings.requireDatabase().table());
        opened.add(registry::close);
        OutboxWorker worker = Guice.createInjector(Stage.PRODUCTION, StandaloneModules.forSettings(settings, registry))
                .getInstance(OutboxWorker.class);
        opened.add(worker);
        worker.start();
        HealthHttpServer http = HealthHttpServer.start(new HttpConfig("127.0.0.1", 0), registry, worker);
        opened.add(http);
        return http.port();
    }

    /** 3 events scheduled an hour ahead, 1 waiting for a retry, 2 dead letters: nothing a relay may take. */
    private void fillTable() throws Exception {
        OutboxWriter writer = database.store.writer();
        List<OutboxEvent> failing = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            failing.add(event("order.placed", null));
        }
        List<OutboxEvent> scheduled = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            scheduled.add(event("order.reminder", Instant.now().plus(Duration.ofHours(1))));
        }
        try (Connection connection = database.dataSource.getConnection()) {
            connection.setAutoCommit(false);
            writer.append(connection, failing);
            connection.commit();
        }
        UUID lease = UUID.randomUUID();
        assertThat(database.store.lease(lease, 10, Instant.now())).hasSize(3);
        database.store.markRetry(
                lease,
                List.of(new RetryMark(
                        failing.get(0).id(), "broker said no", Instant.now().plus(Duration.ofHours(1)))),
                Instant.now());
        database.store.markDeadLettered(
                lease,
                List.of(
                        new DeadLetterMark(failing.get(1).id(), "poison"),
                        new DeadLetterMark(failing.get(2).id(), "poison")),
                Instant.now());
        try (Connection connection = database.dataSource.getConnection()) {
            connection.setAutoCommit(false);
            writer.append(connection, scheduled);
            connection.commit();
        }
    }

    private static OutboxEvent event(String type, Instant availableAt) {
        OutboxEvent.Builder builder = OutboxEvent.builder()
                .type(type)
                .destination("orders")
                .key("order-1")
                .payload("{}".getBytes(StandardCharsets.UTF_8));
        if (availableAt != null) {
            builder.availableAt(availableAt);
        }
        return builder.build();
    }

    @Test
    @DisplayName("table-wide panels show the table's figures once, whatever the number of workers")
    void tableWideFiguresAreNotMultiplied(@TempDir Path dir) throws Exception {
        fillTable();
        int first = startWorker("w1");
        int second = startWorker("w2");

        // both have polled the same table, and their table-wide figures (ages aside, which move with the
        // scrape's clock) agree: the two scrapes taken then are the input
        List<Map<String, Double>> scrapes = new ArrayList<>();
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(200))
                .untilAsserted(() -> {
                    scrapes.clear();
                    scrapes.add(scrape(first));
                    scrapes.add(scrape(second));
                    for (Map<String, Double> scrape : scrapes) {
                        assertThat(scrape)
                                .containsEntry("outbox_events_pending{table=\"" + database.table + "\"}", 4.0)
                                .containsEntry("outbox_events_scheduled{table=\"" + database.table + "\"}", 3.0)
                                .containsEntry(
                                        "outbox_events_rows{status=\"failed\",table=\"" + database.table + "\"}", 2.0);
                    }
                    assertThat(tableWide(scrapes.get(1), false)).isEqualTo(tableWide(scrapes.get(0), false));
                });

        List<String> checked = new ArrayList<>();
        ObjectNode file = YAML.createObjectNode();
        file.putArray("rule_files");
        file.put("evaluation_interval", "1m");
        ObjectNode test = file.putArray("tests").addObject();
        test.put("interval", "1m");
        ArrayNode series = test.putArray("input_series");
        addSeries(series, scrapes.get(0), "w1");
        addSeries(series, scrapes.get(1), "w2");
        ArrayNode checks = test.putArray("promql_expr_test");

        // the figures the test put in the table, once
        Map<String, List<Map.Entry<String, Double>>> known = new LinkedHashMap<>();
        known.put("outbox_events_pending", List.of(Map.entry("{}", 4.0)));
        known.put("outbox_events_in_flight", List.of(Map.entry("{}", 0.0)));
        known.put("outbox_events_dead_letters", List.of(Map.entry("{}", 2.0)));
        known.put("outbox_events_eligible", List.of(Map.entry("{}", 0.0)));
        known.put("outbox_events_retrying", List.of(Map.entry("{}", 1.0)));
        known.put("outbox_events_scheduled", List.of(Map.entry("{}", 3.0)));
        known.put("outbox_events_held", List.of(Map.entry("{}", 0.0)));
        known.put(
                "outbox_events_rows",
                List.of(
                        Map.entry("{status=\"failed\"}", 2.0),
                        Map.entry("{status=\"in_flight\"}", 0.0),
                        Map.entry("{status=\"pending\"}", 4.0),
                        Map.entry("{status=\"sent\"}", 0.0)));
        known.put("outbox_events_oldest_eligible_age_seconds", List.of(Map.entry("{}", 0.0)));

        for (String expression : dashboardExpressions()) {
            Set<String> metrics = metrics(expression);
            if (!metrics.stream().allMatch(metric -> TABLE_WIDE.matcher(metric).matches())) {
                continue; // counters and timers: each worker counts its own work, and the panels add them up
            }
            String both = expression.replace("$job", ".*").replace("$instance", ".*");
            String one = expression.replace("$job", ".*").replace("$instance", "w1");
            // over two workers as over one; an age is read at the scrape, so the two workers' ages differ by
            // the time between their scrapes (seconds at most on a busy machine), counts and sizes not at all.
            // NaN (a figure not known yet, e.g. a vacuum that never ran) compares unequal to itself, so it is
            // left out of this comparison
            String slack = expression.contains("_age") ? "10" : "0.5";
            ObjectNode same = checks.addObject();
            same.put(
                    "expr",
                    "abs((" + both + ") - (" + one + ")) > " + slack + " + 0.001 * abs(" + one + ")" + " unless (("
                            + one + ") != (" + one + "))");
            same.put("eval_time", (STEPS - 1) + "m");
            same.putArray("exp_samples");
            // and the one-worker figure is there at all
            ObjectNode present = checks.addObject();
            present.put("expr", "count(" + one + ") > bool 0");
            present.put("eval_time", (STEPS - 1) + "m");
            present.putArray("exp_samples").addObject().put("labels", "{}").put("value", 1);
            for (String metric : metrics) {
                if (known.containsKey(metric)) {
                    ObjectNode exact = checks.addObject();
                    exact.put("expr", both);
                    exact.put("eval_time", (STEPS - 1) + "m");
                    ArrayNode samples = exact.putArray("exp_samples");
                    known.get(metric)
                            .forEach(sample -> samples.addObject()
                                    .put("labels", sample.getKey())
                                    .put("value", sample.getValue()));
                }
            }
            checked.add(expression);
        }
        assertThat(checked).as("dashboard expressions over table-wide figures").hasSizeGreaterThanOrEqualTo(15);
        assertThat(String.join("\n", checked))
                .contains("outbox_events_pending")
                .contains("outbox_events_rows")
                .contains("outbox_events_scheduled")
                .contains("outbox_table_dead_tuples");

        Path testFile = dir.resolve("dashboard-queries-test.yml");
        YAML.writeValue(testFile.toFile(), file);
        Promtool.testRules(testFile);
    }

    /** The samples of one worker's {@code /metrics}: series (name and labels, as printed) to value. */
    private static Map<String, Double> scrape(int port) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        Map<String, Double> samples = new LinkedHashMap<>();
        for (String line : response.body().split("\n")) {
            Matcher sample = SAMPLE.matcher(line);
            if (line.startsWith("#") || !sample.matches() || !sample.group(1).startsWith("outbox_")) {
                continue;
            }
            samples.put(
                    sample.group(1) + (sample.group(2) == null ? "" : sample.group(2)),
                    Double.parseDouble(sample.group(3)));
        }
        return samples;
    }

    /** The table-wide samples of a scrape; without the ages (they move with each scrape) unless asked. */
    private static Map<String, Double> tableWide(Map<String, Double> scrape, boolean withAges) {
        return scrape.entrySet().stream()
                .filter(entry -> TABLE_WIDE
                        .matcher(entry.getKey().replaceAll("\\{.*", ""))
                        .matches())
                .filter(entry -> withAges || !entry.getKey().contains("_age"))
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue, (a, b) -> a, java.util.TreeMap::new));
    }

    /** Each sample as a constant series of the job "outbox" and the given instance. */
    private static void addSeries(ArrayNode series, Map<String, Double> scrape, String instance) {
        scrape.forEach((name, value) -> {
            String labels = "job=\"outbox\", instance=\"" + instance + "\"";
            String withLabels = name.contains("{")
                    ? name.replace("{", "{" + labels + ", ").replace(", }", "}")
                    : name + "{" + labels + "}";
            String text = Double.isNaN(value) ? "NaN" : Double.toString(value);
            series.addObject()
                    .put("series", withLabels)
                    .put("values", String.join(" ", Collections.nCopies(STEPS, text)));
        });
    }

    private static List<String> dashboardExpressions() throws Exception {
        try (InputStream in =
                DashboardQueriesIT.class.getClassLoader().getResourceAsStream("dashboards/grafana-dashboard.json")) {
            assertThat(in).isNotNull();
            JsonNode dashboard = JSON.readTree(in);
            List<String> expressions = new ArrayList<>();
            dashboard.findValues("expr").forEach(expr -> expressions.add(expr.asText()));
            return expressions;
        }
    }

    private static Set<String> metrics(String expression) {
        Set<String> names = new java.util.TreeSet<>();
        Matcher metric = METRIC.matcher(expression);
        while (metric.find()) {
            names.add(metric.group(1));
        }
        return names;
    }
}
