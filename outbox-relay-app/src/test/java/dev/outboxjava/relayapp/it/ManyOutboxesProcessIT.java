package dev.outboxjava.relayapp.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.testkit.fixture.ChildJvm;
import dev.outboxjava.worker.testsupport.WorkerFixture;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The standalone jar as a worker of many outboxes, against the real PostgreSQL and RabbitMQ: tenant schemas
 * found by {@code OUTBOX_DISCOVERY_SCHEMA_PATTERN} (one created while it runs), and tables listed in
 * {@code OUTBOX_TABLES}, one of them missing, which readiness names while the other drains.
 */
@DisplayName("The standalone worker of many outboxes")
class ManyOutboxesProcessIT {

    private static final String TABLE = "outbox_events";
    private static final Duration DRAIN_TIMEOUT = Duration.ofMinutes(2);

    @RegisterExtension
    static final WorkerFixture fixture = new WorkerFixture("many-outboxes-it");

    /** Every tenant schema of this test starts with it, so the pattern matches no other test's schema. */
    private final String prefix =
            "mp" + UUID.randomUUID().toString().replace("-", "").substring(0, 8).toLowerCase(Locale.ROOT) + "_";

    private final List<String> schemas = new ArrayList<>();

    @AfterEach
    void dropTenants() {
        for (String schema : schemas) {
            fixture.postgres().execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        }
    }

    private Map<String, String> environment(int httpPort) {
        Map<String, String> env = WorkerJar.rabbitMqEnvironment(
                fixture, fixture.postgres().jdbcUrl(), fixture.rabbit().uri(), httpPort);
        env.put("OUTBOX_TABLE", TABLE);
        env.put("OUTBOX_METRICS_POLL_INTERVAL", "1s");
        env.put("OUTBOX_BACKOFF_MAX", "2s");
        return env;
    }

    /** Creates tenant {@code name}'s schema and outbox table (the worker's default layout), with {@code events} events. */
    private List<String> tenant(String name, int events) throws Exception {
        String schema = prefix + name;
        fixture.postgres().execute("CREATE SCHEMA " + schema);
        schemas.add(schema);
        PostgresOutboxStore store = PostgresOutboxStore.create(
                fixture.postgres().dataSource(),
                PostgresOutboxConfig.builder().tableName(schema + "." + TABLE).build());
        store.ensureSchema();
        List<OutboxEvent> batch = new ArrayList<>();
        for (int i = 0; i < events; i++) {
            batch.add(OutboxEvent.builder()
                    .type("order.placed")
                    .destination(fixture.destination().exchange())
                    .key(schema + "-" + (i % 5))
                    .payload(Integer.toString(i).getBytes(StandardCharsets.UTF_8))
                    .build());
        }
        try (Connection connection = fixture.postgres().dataSource().getConnection()) {
            connection.setAutoCommit(false);
            store.writer().append(connection, batch);
            connection.commit();
        }
        return batch.stream().map(event -> event.id().toString()).toList();
    }

    private static HttpResponse<String> get(int port, String path) throws Exception {
        return HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                                .timeout(Duration.ofSeconds(10))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
    }

    private void awaitDelivered(Set<String> ids, ChildJvm worker) {
        await().atMost(DRAIN_TIMEOUT).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
            assertThat(worker.isAlive())
                    .as("worker alive; log:\n%s", worker.output())
                    .isTrue();
            assertThat(fixture.inbox().ids()).containsAll(ids);
        });
    }

    @Test
    @DisplayName(
            "given tenant schemas matching OUTBOX_DISCOVERY_SCHEMA_PATTERN, then one process drains them all, picks up a"
                    + " tenant created while it runs, and its readiness and metrics name each outbox")
    void discoversAndDrainsTenantSchemas() throws Exception {
        Set<String> ids = new HashSet<>();
        for (String name : List.of("a", "b", "c")) {
            ids.addAll(tenant(name, 300));
        }
        Map<String, String> env = environment(WorkerJar.freePort());
        env.put("OUTBOX_DISCOVERY_SCHEMA_PATTERN", prefix + ".*");
        env.put("OUTBOX_DISCOVERY_INTERVAL", "1s");
        env.put("OUTBOX_CONSOLE_ENABLED", "true");
        int port = Integer.parseInt(env.get("OUTBOX_HTTP_PORT"));

        try (ChildJvm worker = WorkerJar.start("many-outboxes-discovered", env, "run")) {
            awaitDelivered(ids, worker);
            Set<String> late = new HashSet<>(tenant("d", 100));
            awaitDelivered(late, worker);

            HttpResponse<String> ready = get(port, "/health/ready?format=json");
            assertThat(ready.statusCode()).as(ready.body()).isEqualTo(200);
            assertThat(ready.body())
                    .contains("\"outboxes\"")
                    .contains("\"schema\":\"" + prefix + "a\"")
                    .contains("\"schema\":\"" + prefix + "d\"")
                    .contains("4 outbox(es)");
            assertThat(get(port, "/health").statusCode()).isEqualTo(200);
            await().atMost(Duration.ofSeconds(30))
                    .untilAsserted(() -> assertThat(get(port, "/metrics").body())
                            .containsPattern(
                                    "outbox_events_published_total\\{[^}]*schema=\"" + prefix + "b\"[^}]*\\} 300\\.0")
                            .contains("outbox_outboxes 4.0"));
            assertThat(worker.output()).contains("every schema matching " + prefix + ".*");

            // the console lists every outbox the worker relays, the one discovered late included
            HttpResponse<String> console = get(port, "/console");
            assertThat(console.statusCode()).as(console.body()).isEqualTo(200);
            assertThat(console.body())
                    .contains("/console/outboxes/" + prefix + "a." + TABLE)
                    .contains("/console/outboxes/" + prefix + "d." + TABLE);
            HttpResponse<String> tenant = get(port, "/console/outboxes/" + prefix + "d." + TABLE + "/dead-letters");
            assertThat(tenant.statusCode()).as(tenant.body()).isEqualTo(200);
        }
    }

    @Test
    @DisplayName("given OUTBOX_TABLES with one table missing, then the other drains and readiness names the missing"
            + " one as backing off")
    void listedTablesOneMissing() throws Exception {
        Set<String> ids = new HashSet<>(tenant("present", 200));
        String missing = prefix + "absent." + TABLE;
        Map<String, String> env = environment(WorkerJar.freePort());
        env.put("OUTBOX_TABLES", prefix + "present." + TABLE + "," + missing);
        int port = Integer.parseInt(env.get("OUTBOX_HTTP_PORT"));

        try (ChildJvm worker = WorkerJar.start("many-outboxes-listed", env, "run")) {
            awaitDelivered(ids, worker);
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                HttpResponse<String> ready = get(port, "/health/ready");
                assertThat(ready.body()).contains(missing + " (database ").contains("backs off");
            });
        }
    }
}
