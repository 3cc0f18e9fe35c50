package dev.outboxjava.relayapp.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.console.ConsoleServer;
import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.DeadLetterMark;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.relayapp.ConfigSource;
import dev.outboxjava.relayapp.RelayAppConfig;
import dev.outboxjava.relayapp.internal.StandaloneConsole;
import dev.outboxjava.relayapp.internal.StandaloneModules;
import dev.outboxjava.relayapp.internal.StandaloneOutboxes;
import dev.outboxjava.testkit.postgres.PostgresFixture;
import dev.outboxjava.testkit.rabbitmq.RabbitMqFixture;
import dev.outboxjava.worker.MultiOutboxWorker;
import java.net.CookieManager;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The standalone's console of many outboxes over HTTP, on a real worker relaying two outboxes in two
 * PostgreSQL schemas: the list shows each one's counts, a repair in one changes nothing in the other,
 * and an outbox that is not relayed is a 404.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
// the list's counts are read before the repairs change them: listsEachOutbox runs first
@TestMethodOrder(MethodOrderer.MethodName.class)
@DisplayName("The web console of a worker of many outboxes")
class ManyOutboxesConsoleIT {

    private static final String CREDENTIAL = "many-console-it-" + UUID.randomUUID();

    private final PostgresFixture postgres = PostgresFixture.shared();
    private RabbitMqFixture rabbit;
    private String schemaA;
    private String schemaB;
    private PostgresOutboxStore storeA;
    private PostgresOutboxStore storeB;
    private List<UUID> deadA;
    private List<UUID> deadB;
    private MultiOutboxWorker worker;
    private StandaloneConsole console;
    private ConsoleServer server;
    private HttpClient client;

    @BeforeAll
    void start() throws Exception {
        rabbit = RabbitMqFixture.start();
        String exchange = rabbit.createDestination("many-console-it").exchange();
        schemaA = postgres.newSchema();
        schemaB = postgres.newSchema();
        storeA = store(schemaA);
        storeB = store(schemaB);
        // dead letters made before the worker starts, and pending events due only in an hour: the worker
        // leaves both alone, so the counts are the test's
        deadA = deadLetters(storeA, exchange, 3);
        deadB = deadLetters(storeB, exchange, 2);
        scheduled(storeA, exchange, 4);
        scheduled(storeB, exchange, 1);
        Map<String, String> values = new HashMap<>();
        values.put("outbox.db.url", postgres.jdbcUrl());
        values.put("outbox.db.user", postgres.user());
        values.put("outbox.db.password", postgres.password());
        values.put("outbox.tables", schemaA + ".outbox_events," + schemaB + ".outbox_events");
        values.put("outbox.broker", "rabbitmq");
        values.put("outbox.rabbitmq.uri", rabbit.uri());
        values.put("outbox.retry.initial.delay", "1h");
        values.put("outbox.retry.max.delay", "1h");
        values.put("outbox.http.port", "18099");
        values.put("outbox.console.enabled", "true");
        values.put("outbox.console.admin.token", CREDENTIAL);
        RelayAppConfig settings = RelayAppConfig.load(ConfigSource.map(values));
        worker = StandaloneOutboxes.worker(settings, StandaloneModules.prometheus());
        console = StandaloneConsole.createIfEnabled(settings, worker, StandaloneModules.prometheus())
                .orElseThrow();
        worker.start();
        server = console.console().start("127.0.0.1", 0);
        client = HttpClient.newBuilder().cookieHandler(new CookieManager()).build();
    }

    @AfterAll
    void stop() {
        if (server != null) {
            server.close();
        }
        if (console != null) {
            console.close();
        }
        if (worker != null) {
            worker.close();
        }
        postgres.dropSchema(schemaA);
        postgres.dropSchema(schemaB);
        if (rabbit != null) {
            rabbit.close();
        }
    }

    private PostgresOutboxStore store(String schema) {
        PostgresOutboxStore store = PostgresOutboxStore.create(
                postgres.dataSource(),
                PostgresOutboxConfig.builder()
                        .tableName(schema + ".outbox_events")
                        .build());
        store.ensureSchema();
        return store;
    }

    private static List<UUID> deadLetters(PostgresOutboxStore store, String exchange, int count) {
        List<UUID> ids = new ArrayList<>();
        List<DeadLetterMark> marks = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            OutboxEvent event = OutboxEvent.builder()
                    .type("order.placed")
                    .destination(exchange)
                    .payload("{}".getBytes(StandardCharsets.UTF_8))
                    .build();
            store.transactional().inTransaction(connection -> List.of(event));
            ids.add(event.id());
            marks.add(new DeadLetterMark(event.id(), "boom " + i));
        }
        UUID lease = UUID.randomUUID();
        assertThat(store.lease(lease, count, Instant.now())).hasSize(count);
        store.markDeadLettered(lease, marks, Instant.now());
        return ids;
    }

    private static void scheduled(PostgresOutboxStore store, String exchange, int count) {
        for (int i = 0; i < count; i++) {
            OutboxEvent event = OutboxEvent.builder()
                    .type("order.placed")
                    .destination(exchange)
                    .payload("{}".getBytes(StandardCharsets.UTF_8))
                    .availableAt(Instant.now().plus(Duration.ofHours(1)))
                    .build();
            store.transactional().inTransaction(connection -> List.of(event));
        }
    }

    private String label(String schema) {
        return schema + ".outbox_events";
    }

    private HttpResponse<String> get(String path) throws Exception {
        return client.send(
                HttpRequest.newBuilder(URI.create(server.url() + path)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(String path, Map<String, String> form) throws Exception {
        String body = form.entrySet().stream()
                .map(e -> URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8) + "="
                        + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
                .collect(Collectors.joining("&"));
        return client.send(
                HttpRequest.newBuilder(URI.create(server.url() + path))
                        .header("Content-Type", "application/x-www-form-urlencoded")
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private String signInAndReadCsrf(String schema) throws Exception {
        assertThat(post("/login", Map.of("credential", CREDENTIAL, "operator", "alice"))
                        .statusCode())
                .isEqualTo(303);
        Matcher csrf = Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"")
                .matcher(get("/outboxes/" + label(schema) + "/dead-letters").body());
        assertThat(csrf.find()).isTrue();
        return csrf.group(1);
    }

    /** The counts of one outbox's row on the list: pending, in flight, dead letters, retrying. */
    private static List<String> row(String page, String label) {
        int start = page.indexOf("data-outbox=\"" + label + "\"");
        assertThat(start).as("the list shows " + label).isGreaterThan(0);
        String row = page.substring(start, page.indexOf("</tr>", start));
        List<String> counts = new ArrayList<>();
        for (String kind : List.of("pending", "in-flight", "dead-letters", "retrying")) {
            Matcher cell = Pattern.compile("class=\"num " + kind + "\">(?:<a [^>]*>)?(\\d+)")
                    .matcher(row);
            assertThat(cell.find()).as(kind + " of " + label).isTrue();
            counts.add(cell.group(1));
        }
        return counts;
    }

    @Test
    @DisplayName("the list shows every outbox the worker relays with its own counts and a link into it")
    void listsEachOutbox() throws Exception {
        HttpResponse<String> list = get("");

        assertThat(list.statusCode()).isEqualTo(200);
        assertThat(row(list.body(), label(schemaA))).containsExactly("4", "0", "3", "0");
        assertThat(row(list.body(), label(schemaB))).containsExactly("1", "0", "2", "0");
        assertThat(list.body())
                .contains("href=\"/console/outboxes/" + label(schemaA) + "\"")
                .contains("oldest open transaction");
        HttpResponse<String> overviewB = get("/outboxes/" + label(schemaB));
        assertThat(overviewB.statusCode()).isEqualTo(200);
        assertThat(overviewB.body()).contains("id=\"count-failed\">2<", "oldest eligible event waiting");
    }

    @Test
    @DisplayName("a requeue in one outbox and a purge in the other each change only their own outbox")
    void repairsStayInTheirOutbox() throws Exception {
        String csrf = signInAndReadCsrf(schemaA);
        UUID requeued = deadA.get(0);
        Map<String, String> requeue = new LinkedHashMap<>();
        requeue.put("csrf", csrf);
        requeue.put("scope", "selected");
        requeue.put("id", requeued.toString());
        HttpResponse<String> done = post("/outboxes/" + label(schemaA) + "/dead-letters/requeue", requeue);
        assertThat(done.statusCode()).isEqualTo(303);
        assertThat(done.headers().firstValue("Location"))
                .hasValue("/console/outboxes/" + label(schemaA) + "/dead-letters");
        assertThat(storeA.find(requeued).orElseThrow().status()).isNotEqualTo(EventStatus.FAILED);
        assertThat(deadB)
                .allSatisfy(
                        id -> assertThat(storeB.find(id).orElseThrow().status()).isEqualTo(EventStatus.FAILED));

        // B's dead letter asked for through A's pages is not A's: not found, nothing changed
        assertThat(get("/outboxes/" + label(schemaA) + "/dead-letters/" + deadB.get(0))
                        .statusCode())
                .isEqualTo(404);
        Map<String, String> purge = new LinkedHashMap<>();
        purge.put("csrf", csrf);
        purge.put("scope", "selected");
        purge.put("id", deadB.get(0).toString());
        purge.put("confirm", "yes");
        assertThat(post("/outboxes/" + label(schemaB) + "/dead-letters/purge", purge)
                        .statusCode())
                .isEqualTo(303);
        assertThat(storeB.find(deadB.get(0))).isEmpty();
        assertThat(storeB.find(deadB.get(1)).orElseThrow().status()).isEqualTo(EventStatus.FAILED);
        assertThat(deadA.subList(1, 3))
                .allSatisfy(
                        id -> assertThat(storeA.find(id).orElseThrow().status()).isEqualTo(EventStatus.FAILED));

        purge.put("id", deadA.get(1).toString());
        post("/outboxes/" + label(schemaB) + "/dead-letters/purge", purge);
        assertThat(storeA.find(deadA.get(1)))
                .as("A's event purged through B's pages")
                .isPresent();
    }

    @Test
    @DisplayName("an outbox the worker does not relay gives a 404 page naming it, escaped; a change there needs CSRF")
    void unknownOutbox() throws Exception {
        HttpResponse<String> unknown = get("/outboxes/no_such_schema.outbox_events/dead-letters");
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(unknown.body()).contains("No such outbox", "no_such_schema.outbox_events");

        HttpResponse<String> hostile = get("/outboxes/%3Cscript%3Ex/audit");
        assertThat(hostile.statusCode()).isEqualTo(404);
        assertThat(hostile.body()).doesNotContain("<script>").contains("&lt;script&gt;x");

        HttpClient anonymous = HttpClient.newHttpClient();
        HttpResponse<String> refused = anonymous.send(
                HttpRequest.newBuilder(
                                URI.create(server.url() + "/outboxes/" + label(schemaB) + "/dead-letters/requeue"))
                        .header("Content-Type", "application/x-www-form-urlencoded")
                        .POST(HttpRequest.BodyPublishers.ofString("scope=matching"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(refused.statusCode()).isEqualTo(401);
        assertThat(storeB.find(deadB.get(1)).orElseThrow().status()).isEqualTo(EventStatus.FAILED);
    }
}
