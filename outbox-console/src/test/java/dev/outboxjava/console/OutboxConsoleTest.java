package dev.outboxjava.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.memory.InMemoryOutboxStore;
import dev.outboxjava.core.port.DeadLetterMark;
import dev.outboxjava.core.port.RetryMark;
import dev.outboxjava.core.time.ManualClock;
import java.net.CookieManager;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The console over HTTP on an in-memory store: its security rules and its escaping, without a browser. */
class OutboxConsoleTest {

    private static final String CREDENTIAL = "s3cret-admin-token";

    private InMemoryOutboxStore store;
    private ConsoleServer server;
    private HttpClient client;
    private OutboxEvent dead;

    @BeforeEach
    void start() {
        store = new InMemoryOutboxStore();
        dead = OutboxEvent.builder()
                .type("order.placed")
                .destination("orders")
                .key("k<1>")
                .payload("{\"note\":\"<script>alert(1)</script>\"}".getBytes(StandardCharsets.UTF_8))
                .header("x-evil", "<img src=x onerror=alert(1)>\u001b[2J")
                .build();
        store.append(dead);
        UUID lease = UUID.randomUUID();
        store.lease(lease, 10, dead.createdAt());
        store.markDeadLettered(lease, List.of(new DeadLetterMark(dead.id(), "<b>boom</b>")), dead.createdAt());
        server =
                OutboxConsole.builder(store).adminCredential(CREDENTIAL).build().start("127.0.0.1", 0);
        client = HttpClient.newBuilder().cookieHandler(new CookieManager()).build();
    }

    @AfterEach
    void stop() {
        server.close();
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

    private String signInAndReadCsrf() throws Exception {
        HttpResponse<String> signedIn = post("/login", Map.of("credential", CREDENTIAL, "operator", "alice"));
        assertThat(signedIn.statusCode()).isEqualTo(303);
        Matcher csrf = Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"")
                .matcher(get("/dead-letters").body());
        assertThat(csrf.find()).isTrue();
        return csrf.group(1);
    }

    private Map<String, String> requeueForm(String csrf) {
        Map<String, String> form = new LinkedHashMap<>();
        form.put("scope", "selected");
        form.put("id", dead.id().toString());
        if (csrf != null) {
            form.put("csrf", csrf);
        }
        return form;
    }

    @Test
    @DisplayName("a change without the credential is refused and changes nothing")
    void noCredential() throws Exception {
        HttpResponse<String> response = post("/dead-letters/requeue", requeueForm("anything"));

        assertThat(response.statusCode()).isEqualTo(401);
        assertThat(store.find(dead.id()).orElseThrow().status()).isEqualTo(EventStatus.FAILED);
    }

    @Test
    @DisplayName("a wrong credential signs no one in")
    void wrongCredential() throws Exception {
        assertThat(post("/login", Map.of("credential", "guess")).statusCode()).isEqualTo(401);
        assertThat(post("/dead-letters/requeue", requeueForm("x")).statusCode()).isEqualTo(401);
    }

    @Test
    @DisplayName("after five wrong credentials within a minute a client gets 429, even with the right one, until "
            + "the minute is over")
    void signInThrottled() throws Exception {
        server.close();
        ManualClock clock = new ManualClock(Instant.parse("2024-03-01T10:00:00Z"));
        server = OutboxConsole.builder(store)
                .adminCredential(CREDENTIAL)
                .clock(clock)
                .build()
                .start("127.0.0.1", 0);
        for (int i = 0; i < 5; i++) {
            assertThat(post("/login", Map.of("credential", "guess-" + i)).statusCode())
                    .isEqualTo(401);
            clock.advance(Duration.ofSeconds(5));
        }

        HttpResponse<String> throttled = post("/login", Map.of("credential", CREDENTIAL, "operator", "alice"));

        assertThat(throttled.statusCode()).isEqualTo(429);
        assertThat(throttled.headers().firstValue("Retry-After")).hasValue("35");
        assertThat(throttled.body()).contains("Too many wrong credentials from your address: try again in 35 s");
        assertThat(throttled.headers().firstValue("Set-Cookie")).isEmpty();

        clock.advance(Duration.ofSeconds(35));
        assertThat(post("/login", Map.of("credential", CREDENTIAL, "operator", "alice"))
                        .statusCode())
                .isEqualTo(303);
    }

    @Test
    @DisplayName("a successful sign-in clears the count of wrong credentials")
    void signInSuccessClears() throws Exception {
        for (int i = 0; i < 4; i++) {
            assertThat(post("/login", Map.of("credential", "guess-" + i)).statusCode())
                    .isEqualTo(401);
        }
        assertThat(post("/login", Map.of("credential", CREDENTIAL)).statusCode())
                .isEqualTo(303);
        for (int i = 0; i < 5; i++) {
            assertThat(post("/login", Map.of("credential", "again-" + i)).statusCode())
                    .isEqualTo(401);
        }
        assertThat(post("/login", Map.of("credential", CREDENTIAL)).statusCode())
                .isEqualTo(429);
    }

    @Test
    @DisplayName("a signed-in change without the CSRF token, or with a wrong one, is refused and changes nothing")
    void noCsrf() throws Exception {
        signInAndReadCsrf();

        assertThat(post("/dead-letters/requeue", requeueForm(null)).statusCode())
                .isEqualTo(403);
        assertThat(post("/dead-letters/requeue", requeueForm("forged")).statusCode())
                .isEqualTo(403);
        assertThat(store.find(dead.id()).orElseThrow().status()).isEqualTo(EventStatus.FAILED);
        assertThat(store.auditTrail(OptionalLong.empty(), 10)).isEmpty();
    }

    @Test
    @DisplayName("with the credential and the CSRF token a requeue happens and is audited under the operator's name")
    void requeue() throws Exception {
        String csrf = signInAndReadCsrf();

        HttpResponse<String> response = post("/dead-letters/requeue", requeueForm(csrf));

        assertThat(response.statusCode()).isEqualTo(303);
        assertThat(store.find(dead.id()).orElseThrow().status()).isEqualTo(EventStatus.PENDING);
        assertThat(store.auditTrail(OptionalLong.empty(), 10))
                .singleElement()
                .satisfies(entry -> assertThat(entry.actor()).isEqualTo("alice (console)"));
    }

    @Test
    @DisplayName("without an admin credential the console shows but refuses every change")
    void readOnly() throws Exception {
        try (ConsoleServer readOnly = OutboxConsole.builder(store).build().start("127.0.0.1", 0)) {
            HttpResponse<String> page = client.send(
                    HttpRequest.newBuilder(URI.create(readOnly.url() + "/dead-letters"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            HttpResponse<String> refused = client.send(
                    HttpRequest.newBuilder(URI.create(readOnly.url() + "/dead-letters/requeue"))
                            .header("Content-Type", "application/x-www-form-urlencoded")
                            .POST(HttpRequest.BodyPublishers.ofString("scope=matching"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());

            assertThat(page.statusCode()).isEqualTo(200);
            assertThat(page.body()).contains(dead.id().toString()).doesNotContain("requeue-selected");
            assertThat(refused.statusCode()).isEqualTo(403);
            assertThat(refused.body()).contains("read-only");
            assertThat(store.find(dead.id()).orElseThrow().status()).isEqualTo(EventStatus.FAILED);
        }
    }

    @Test
    @DisplayName("the detail view lists each failed attempt with its error, escaped")
    void attempts() throws Exception {
        OutboxEvent flaky = OutboxEvent.builder()
                .type("order.flaky")
                .destination("orders")
                .payload(new byte[] {1})
                .build();
        store.append(flaky);
        UUID first = UUID.randomUUID();
        store.lease(first, 10, flaky.createdAt());
        store.markRetry(
                first,
                List.of(new RetryMark(flaky.id(), "NO_ROUTE: <i>nobody</i>", flaky.createdAt())),
                flaky.createdAt());
        UUID second = UUID.randomUUID();
        store.lease(second, 10, flaky.createdAt());
        store.markDeadLettered(second, List.of(new DeadLetterMark(flaky.id(), "404 NOT_FOUND")), flaky.createdAt());

        String detail = get("/dead-letters/" + flaky.id()).body();

        Matcher rows = Pattern.compile("<tr class=\"attempt\">(.*?)</tr>").matcher(detail);
        List<String> found = new java.util.ArrayList<>();
        while (rows.find()) {
            found.add(rows.group(1));
        }
        assertThat(found).hasSize(2);
        assertThat(found.get(0))
                .contains("<td>1</td>", "retry", "NO_ROUTE: &lt;i&gt;nobody&lt;/i&gt;", first.toString());
        assertThat(found.get(1)).contains("<td>2</td>", "dead letter", "404 NOT_FOUND", second.toString());
    }

    @Test
    @DisplayName("markup and control characters in payload, headers, key and error are shown escaped, never raw")
    void escaping() throws Exception {
        String list = get("/dead-letters").body();
        String detail = get("/dead-letters/" + dead.id()).body();

        assertThat(list + detail).doesNotContain("<script>alert", "<img src=x", "<b>boom", "k<1>", "\u001b");
        assertThat(detail)
                .contains(
                        "&lt;script&gt;alert(1)&lt;/script&gt;",
                        "&lt;img src=x onerror=alert(1)&gt;<span class=\"control\" title=\"control character "
                                + "U+001B\">\\u001B</span>[2J",
                        "&lt;b&gt;boom&lt;/b&gt;");
        assertThat(get("/dead-letters/" + dead.id()).headers().firstValue("Content-Security-Policy"))
                .hasValueSatisfying(csp -> assertThat(csp).contains("default-src 'none'"));
    }

    @Test
    @DisplayName("an unknown id and a malformed filter give a clear message")
    void badInput() throws Exception {
        HttpResponse<String> unknown = get("/dead-letters/" + UUID.randomUUID());
        HttpResponse<String> notAnId = get("/dead-letters/not-an-id");
        HttpResponse<String> badDate = get("/dead-letters?from=yesterday");

        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(unknown.body()).contains("No event with id");
        assertThat(notAnId.statusCode()).isEqualTo(404);
        assertThat(badDate.statusCode()).isEqualTo(400);
        assertThat(badDate.body()).contains("from &#39;yesterday&#39; is not a date-time");
    }

    @Test
    @DisplayName("a store that fails (database down) is shown as a message, not a bare error")
    void storeDown() throws Exception {
        store.setAvailable(false);

        HttpResponse<String> overview = get("");

        assertThat(overview.statusCode()).isEqualTo(503);
        assertThat(overview.body()).contains("id=\"problem\"", "unavailable");
    }

    @Test
    @DisplayName("an oversized edit is refused with a message and changes nothing")
    void oversizedEdit() throws Exception {
        String csrf = signInAndReadCsrf();

        HttpResponse<String> response = post(
                "/dead-letters/" + dead.id() + "/edit",
                Map.of("csrf", csrf, "payload", "x".repeat(OutboxEvent.DEFAULT_MAX_PAYLOAD_BYTES + 1), "headers", ""));

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.body()).contains("Nothing was changed", "payload");
        assertThat(store.find(dead.id()).orElseThrow().status()).isEqualTo(EventStatus.FAILED);
    }
}
