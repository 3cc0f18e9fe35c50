package dev.outboxjava.relayapp.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.inject.Guice;
import com.google.inject.Injector;
import com.google.inject.Stage;
import com.rabbitmq.client.BuiltinExchangeType;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.GetResponse;
import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.DeadLetterFilter;
import dev.outboxjava.core.port.WorkerHeartbeat;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.relayapp.ConfigSource;
import dev.outboxjava.relayapp.RelayAppConfig;
import dev.outboxjava.relayapp.internal.HealthHttpServer;
import dev.outboxjava.relayapp.internal.StandaloneConsole;
import dev.outboxjava.relayapp.internal.StandaloneModules;
import dev.outboxjava.testkit.postgres.PostgresFixture;
import dev.outboxjava.testkit.rabbitmq.RabbitMqDestination;
import dev.outboxjava.testkit.rabbitmq.RabbitMqFixture;
import dev.outboxjava.worker.OutboxWorker;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.lang.management.ManagementFactory;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The web console in a real headless browser, served by a real worker relaying a real PostgreSQL
 * outbox to a real RabbitMQ: the overview counts, a dead letter found by filter, opened, edited and
 * requeued and then published with the edited payload, a purge that asks first and removes exactly
 * the matching rows, refusals without the credential or the CSRF token, a payload holding a script that
 * stays inert; the failures grouped by cause and repaired per group, retrying events retried or
 * dead-lettered now, the budget that stopped a dead letter, filters by part of a value, the audit's ids and
 * new payloads, and every worker of the table. Each page is photographed for the docs.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@DisplayName("The web console, in a browser, on a running worker")
class ConsoleBrowserIT {

    private static final String CREDENTIAL = "console-it-" + UUID.randomUUID();

    private final PostgresFixture postgres = PostgresFixture.shared();
    private RabbitMqFixture rabbit;
    private RabbitMqDestination good;
    private String missingExchange;
    private String table;
    private PostgresOutboxStore store;
    private OutboxWorker worker;
    private StandaloneConsole console;
    private HealthHttpServer http;
    private ChromeDriver browser;

    @BeforeAll
    void start() throws Exception {
        browser = Browser.start();
        rabbit = RabbitMqFixture.start();
        good = rabbit.createDestination("console-it");
        missingExchange = "console-it-missing." + UUID.randomUUID().toString().substring(0, 8);
        table = "console_it_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        Map<String, String> values = new HashMap<>();
        values.put("outbox.db.url", postgres.jdbcUrl());
        values.put("outbox.db.user", postgres.user());
        values.put("outbox.db.password", postgres.password());
        values.put("outbox.table", table);
        values.put("outbox.broker", "rabbitmq");
        values.put("outbox.rabbitmq.uri", rabbit.uri());
        values.put("outbox.ordering", "per_key");
        values.put("outbox.retry.unroutable.max.attempts", "2");
        values.put("outbox.retry.initial.delay", "1h");
        values.put("outbox.retry.max.delay", "1h");
        values.put("outbox.relay.poll.interval", "100ms");
        values.put("outbox.http.port", Integer.toString(freePort()));
        values.put("outbox.http.host", "127.0.0.1");
        values.put("outbox.console.enabled", "true");
        values.put("outbox.console.admin.token", CREDENTIAL);
        RelayAppConfig settings = RelayAppConfig.load(ConfigSource.map(values));
        PrometheusMeterRegistry registry = StandaloneModules.prometheus();
        Injector injector = Guice.createInjector(Stage.PRODUCTION, StandaloneModules.forSettings(settings, registry));
        store = injector.getInstance(PostgresOutboxStore.class);
        store.ensureSchema();
        worker = injector.getInstance(OutboxWorker.class);
        worker.start();
        console = StandaloneConsole.createIfEnabled(settings, store, registry).orElseThrow();
        http = HealthHttpServer.start(settings.http(), registry, worker, Optional.of(console.console()));
        console.start(settings.http(), http.port());
    }

    @AfterAll
    void stop() {
        if (browser != null) {
            browser.quit();
        }
        if (http != null) {
            http.close();
        }
        if (console != null) {
            console.close();
        }
        if (worker != null) {
            worker.close();
        }
        if (store != null) {
            // the table, its views and partitions, and the side tables of the append-only layout
            postgres.execute("DROP TABLE IF EXISTS " + table + ", "
                    + String.join(
                            ", ",
                            List.of(
                                            "_audit",
                                            "_attempts",
                                            "_workers",
                                            "_state",
                                            "_sent",
                                            "_lease",
                                            "_position",
                                            "_floor")
                                    .stream()
                                    .map(suffix -> table + suffix)
                                    .toList())
                    + " CASCADE");
        }
        if (rabbit != null) {
            rabbit.close();
        }
    }

    private static int freePort() throws Exception {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private OutboxEvent event(String type, String destination, String key, String payload, int maxAttempts) {
        OutboxEvent.Builder builder = OutboxEvent.builder()
                .type(type)
                .destination(destination)
                .payload(payload.getBytes(StandardCharsets.UTF_8))
                .maxAttempts(maxAttempts)
                .header("tenant", "acme");
        if (key != null) {
            builder.key(key);
        }
        return builder.build();
    }

    private void append(OutboxEvent... events) {
        store.transactional().inTransaction(connection -> List.of(events));
    }

    private void awaitStatus(UUID id, EventStatus status) {
        await().atMost(Duration.ofSeconds(30))
                .until(() -> store.find(id).map(OutboxEvent::status).orElse(null) == status);
    }

    private void open(String path) {
        browser.get("http://127.0.0.1:" + http.port() + "/console" + path);
    }

    /**
     * The element's text, once the page that shows it has loaded (a click's form post may still be on its way,
     * and the page it replaces may go while its element is read: then it is read again from the new page).
     */
    private String text(String id) {
        return new WebDriverWait(browser, Duration.ofSeconds(10))
                .ignoring(StaleElementReferenceException.class)
                .until(loaded -> loaded.findElement(By.id(id)).getText());
    }

    private void signIn() {
        // signed out first: a signed-in browser's sign-in page already shows who is signed in, so the wait
        // below would pass before the form post's answer arrives and its redirect would race the next page
        signOut();
        open("/login");
        browser.findElement(By.id("operator")).sendKeys("Ada");
        browser.findElement(By.id("credential")).sendKeys(CREDENTIAL);
        browser.findElement(By.id("sign-in")).click();
        // the form post's answer replaces the sign-in page; until it has loaded the old page is still there
        new WebDriverWait(browser, Duration.ofSeconds(10))
                .withMessage(() -> "not signed in; the page shows: " + browser.getPageSource())
                .until(loaded -> !loaded.getCurrentUrl().endsWith("/login")
                        && loaded.getPageSource().contains("signed in as Ada (console)"));
    }

    private void signOut() {
        browser.manage().deleteAllCookies();
    }

    @Test
    @Order(1)
    @DisplayName("the overview shows the counts per state and per destination")
    void overview() {
        OutboxEvent a = event("order.placed", good.exchange(), "order-1", "{\"order\":1}", 10);
        OutboxEvent b = event("order.placed", good.exchange(), "order-2", "{\"order\":2}", 10);
        OutboxEvent dead = event("order.broken", missingExchange, "order-3", "{\"order\":3,\"sku\":\"typo\"}", 1);
        append(a, b, dead);
        awaitStatus(a.id(), EventStatus.SENT);
        awaitStatus(b.id(), EventStatus.SENT);
        awaitStatus(dead.id(), EventStatus.FAILED);
        OutboxEvent retrying = event("invoice.issued", missingExchange, "invoice-7", "{\"invoice\":7}", 10);
        append(retrying);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> store.find(retrying.id()).orElseThrow().attempts() == 1);
        append(event(
                "order.paid",
                good.exchange(),
                "order-3",
                "{\"order\":3,\"paid\":true}",
                10)); // held behind the dead letter

        open("");

        assertThat(text("count-sent")).isEqualTo("2");
        assertThat(text("count-failed")).isEqualTo("1");
        assertThat(text("count-pending")).isEqualTo("2");
        assertThat(text("destinations")).contains(missingExchange, good.exchange());
        assertThat(text("health")).contains("dead tuples", "oldest open transaction");

        open("/retrying");
        assertThat(text("retrying")).contains(retrying.id().toString(), "invoice.issued");
        assertThat(text("held-keys")).contains("order-3", dead.id().toString(), "dead letter");
        Browser.screenshot(browser, "retrying");
    }

    @Test
    @Order(2)
    @DisplayName(
            "a dead letter is found by filter, opened, edited and requeued, then published with the edited payload")
    void findEditRequeue() throws Exception {
        OutboxEvent broken = store.findDeadLetters(
                        DeadLetterFilter.any().withType("order.broken"), OptionalLong.empty(), 1)
                .events()
                .get(0);
        signIn();

        open("/dead-letters");
        browser.findElement(By.id("filter-type")).sendKeys("order.broken");
        browser.findElement(By.id("filter-error")).sendKeys("404");
        browser.findElement(By.id("apply-filter")).click();
        assertThat(text("match-count")).startsWith("1 dead letter(s) match");
        browser.findElement(By.linkText(broken.id().toString())).click();
        assertThat(text("event-status")).isEqualTo("failed");
        assertThat(text("payload")).contains("\"sku\" : \"typo\"");
        assertThat(text("last-error")).contains(missingExchange);

        // the operator fixes the broker side (the exchange now exists) and the payload
        try (Connection connection = rabbit.connectionFactory().newConnection();
                Channel channel = connection.createChannel()) {
            channel.exchangeDeclare(missingExchange, BuiltinExchangeType.TOPIC, false, false, null);
            channel.queueDeclare(missingExchange, false, false, false, null);
            channel.queueBind(missingExchange, missingExchange, "#");
            WebElement payload = browser.findElement(By.id("edit-payload"));
            payload.clear();
            payload.sendKeys("{\"order\":3,\"sku\":\"fixed\"}");
            WebElement headers = browser.findElement(By.id("edit-headers"));
            headers.clear();
            headers.sendKeys("tenant: acme\nfixed-by: Ada");
            browser.findElement(By.id("edit-requeue")).click();
            assertThat(text("notice")).contains("Saved and requeued");

            awaitStatus(broken.id(), EventStatus.SENT);
            GetResponse delivered = channel.basicGet(missingExchange, true);
            assertThat(delivered).isNotNull();
            assertThat(new String(delivered.getBody(), StandardCharsets.UTF_8))
                    .isEqualTo("{\"order\":3,\"sku\":\"fixed\"}");
            assertThat(delivered.getProps().getHeaders()).containsKey("fixed-by");
            channel.exchangeDelete(missingExchange);
            channel.queueDelete(missingExchange);
        }

        open("/audit");
        assertThat(text("audit")).contains("Ada (console)", "edit-requeue", "id=" + broken.id());
        browser.findElement(By.cssSelector("#audit details.audit-original summary"))
                .click();
        assertThat(text("audit")).contains("\"sku\" : \"typo\"");
    }

    @Test
    @Order(3)
    @DisplayName("purge asks for confirmation and removes exactly the dead letters that match")
    void purge() {
        OutboxEvent one = event("order.expired", missingExchange, null, "{}", 1);
        OutboxEvent two = event("order.expired", missingExchange, null, "{}", 1);
        OutboxEvent other = event("order.refunded", missingExchange, null, "{}", 1);
        append(one, two, other);
        awaitStatus(one.id(), EventStatus.FAILED);
        awaitStatus(two.id(), EventStatus.FAILED);
        awaitStatus(other.id(), EventStatus.FAILED);
        signIn();

        open("/dead-letters?type=order.expired");
        browser.findElement(By.id("purge-matching")).click();
        assertThat(text("confirm-text")).contains("Delete 2 dead letter(s) (type~order.expired)");
        assertThat(store.find(one.id())).isPresent();
        Browser.screenshot(browser, "purge-confirm");
        browser.findElement(By.id("confirm")).click();

        assertThat(text("notice")).contains("Purged 2 dead letter(s)");
        assertThat(store.find(one.id())).isEmpty();
        assertThat(store.find(two.id())).isEmpty();
        assertThat(store.find(other.id()).orElseThrow().status()).isEqualTo(EventStatus.FAILED);
    }

    @Test
    @Order(4)
    @DisplayName("an action without the CSRF token, or without the credential, is refused and changes nothing")
    void refusals() {
        OutboxEvent dead = event("order.lost", missingExchange, null, "{}", 1);
        append(dead);
        awaitStatus(dead.id(), EventStatus.FAILED);
        long audited = store.auditTrail(OptionalLong.empty(), 100).size();
        signIn();

        open("/dead-letters?type=order.lost");
        browser.executeScript("document.querySelector('#selection input[name=csrf]').remove()");
        browser.findElement(By.cssSelector("#dead-letters input[type=checkbox]"))
                .click();
        browser.findElement(By.id("requeue-selected")).click();
        assertThat(text("problem")).contains("security token is missing");
        assertThat(store.find(dead.id()).orElseThrow().status()).isEqualTo(EventStatus.FAILED);

        open("/dead-letters?type=order.lost");
        signOut();
        browser.findElement(By.cssSelector("#dead-letters input[type=checkbox]"))
                .click();
        browser.findElement(By.id("requeue-selected")).click();
        assertThat(text("problem")).contains("Sign in with the admin credential");
        assertThat(store.find(dead.id()).orElseThrow().status()).isEqualTo(EventStatus.FAILED);
        assertThat(store.auditTrail(OptionalLong.empty(), 100)).hasSize((int) audited);

        open("/dead-letters?type=order.lost");
        assertThat(browser.findElements(By.id("requeue-selected")))
                .as("no action offered when signed out")
                .isEmpty();
    }

    @Test
    @Order(5)
    @DisplayName("an event whose payload, headers and key hold script renders inert")
    void scriptIsInert() throws SQLException {
        String script = "<script>window.pwned = true;</script><img src=x onerror=\"window.pwned = true\">";
        OutboxEvent hostile = OutboxEvent.builder()
                .type("order.hostile")
                .destination(missingExchange)
                .maxAttempts(1)
                .key("<script>window.pwned = true;</script>")
                .header("x-note", script + "\u001b[2J")
                .payload(("{\"note\":\"" + script.replace("\"", "\\\"") + "\"}").getBytes(StandardCharsets.UTF_8))
                .build();
        append(hostile);
        awaitStatus(hostile.id(), EventStatus.FAILED);

        open("/dead-letters?type=order.hostile");
        assertThat(browser.executeScript("return window.pwned === undefined")).isEqualTo(true);
        assertThat(text("dead-letters")).contains("<script>window.pwned = true;</script>");
        open("/dead-letters/" + hostile.id());

        assertThat(browser.executeScript("return window.pwned === undefined")).isEqualTo(true);
        assertThat(browser.findElements(By.cssSelector("main script, main img")))
                .isEmpty();
        assertThat(text("headers")).contains("<img src=x", "\\u001B[2J");
        assertThat(text("payload")).contains("<script>");
    }

    @Test
    @Order(6)
    @DisplayName("the detail view lists every failed attempt with its error, before and after a requeue")
    void everyAttemptWithItsError() throws Exception {
        String exchange = "console-it-flaky." + UUID.randomUUID().toString().substring(0, 8);
        OutboxEvent flaky = event("order.flaky", exchange, null, "{\"order\":9}", 1);
        append(flaky);
        awaitStatus(flaky.id(), EventStatus.FAILED);
        signIn();
        try (Connection connection = rabbit.connectionFactory().newConnection();
                Channel channel = connection.createChannel()) {
            // the exchange now exists, but no queue is bound to it: the next attempt fails differently
            channel.exchangeDeclare(exchange, BuiltinExchangeType.TOPIC, false, false, null);
            open("/dead-letters/" + flaky.id());
            browser.findElement(By.id("requeue-one")).click();
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> store.attempts(flaky.id()).size() == 2);
            channel.exchangeDelete(exchange);
        }

        open("/dead-letters/" + flaky.id());

        List<WebElement> attempts = browser.findElements(By.cssSelector("#attempts tr.attempt"));
        assertThat(attempts).hasSize(2);
        // "404 NOT_FOUND", not "404" alone: the row also shows the lease id, a random UUID
        assertThat(attempts.get(0).getText()).startsWith("1 ").contains("404 NOT_FOUND", exchange);
        assertThat(attempts.get(1).getText())
                .startsWith("1 ")
                .contains("NO_ROUTE")
                .doesNotContain("404 NOT_FOUND");
    }

    @Test
    @Order(7)
    @DisplayName("edit and requeue delivers the box nobody edited byte for byte, control characters included")
    void untouchedFieldRoundTrips() throws Exception {
        String exchange = "console-it-bytes." + UUID.randomUUID().toString().substring(0, 8);
        String crlfEsc = "line1\r\nline2 \u001b[0m";
        OutboxEvent headersEdited = OutboxEvent.builder()
                .type("order.bytes")
                .destination(exchange)
                .maxAttempts(1)
                .header("x-bell", "bell\u0007")
                .payload(crlfEsc.getBytes(StandardCharsets.UTF_8))
                .build();
        String textAndEsc = "the text \\u001B, then ESC \u001b";
        OutboxEvent payloadEdited = OutboxEvent.builder()
                .type("order.bytes")
                .destination(exchange)
                .maxAttempts(1)
                .header("x-bell", "bell\u0007")
                .payload(textAndEsc.getBytes(StandardCharsets.UTF_8))
                .build();
        append(headersEdited, payloadEdited);
        awaitStatus(headersEdited.id(), EventStatus.FAILED);
        awaitStatus(payloadEdited.id(), EventStatus.FAILED);
        signIn();
        try (Connection connection = rabbit.connectionFactory().newConnection();
                Channel channel = connection.createChannel()) {
            // the exchange exists from now on: the requeued events are published
            channel.exchangeDeclare(exchange, BuiltinExchangeType.TOPIC, false, false, null);
            channel.queueDeclare(exchange, false, false, false, null);
            channel.queueBind(exchange, exchange, "#");
            editBoth(headersEdited, payloadEdited);
            Map<String, GetResponse> delivered = new HashMap<>();
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                GetResponse next = channel.basicGet(exchange, true);
                if (next != null) {
                    delivered.put(next.getProps().getMessageId(), next);
                }
                return delivered.size() == 2;
            });
            GetResponse first = delivered.get(headersEdited.id().toString());
            assertThat(first.getBody()).isEqualTo(crlfEsc.getBytes(StandardCharsets.UTF_8));
            assertThat(first.getProps().getHeaders().get("x-bell")).hasToString("bell\u0007");
            assertThat(first.getProps().getHeaders()).containsKey("fixed-by");
            GetResponse second = delivered.get(payloadEdited.id().toString());
            assertThat(new String(second.getBody(), StandardCharsets.UTF_8)).isEqualTo("{\"fixed\":true}");
            assertThat(second.getProps().getHeaders().get("x-bell")).hasToString("bell\u0007");
            channel.exchangeDelete(exchange);
            channel.queueDelete(exchange);
        }
        assertThat(store.find(headersEdited.id()).orElseThrow().payload())
                .isEqualTo(crlfEsc.getBytes(StandardCharsets.UTF_8));
        assertThat(store.find(headersEdited.id()).orElseThrow().headers())
                .containsEntry("x-bell", "bell\u0007")
                .containsEntry("fixed-by", "Ada");
        assertThat(store.find(payloadEdited.id()).orElseThrow().headers())
                .containsExactlyEntriesOf(Map.of("x-bell", "bell\u0007"));
    }

    @Test
    @Order(8)
    @DisplayName("a sign-out with a forged CSRF token is refused and keeps the session; a genuine one ends it")
    void forgedSignOut() {
        signIn();
        String cookie =
                browser.manage().getCookieNamed("outbox_console_session").getValue();

        open("/dead-letters");
        browser.executeScript("document.querySelector('header form input[name=csrf]').value = 'forged'");
        browser.findElement(By.id("sign-out")).click();

        assertThat(text("problem")).contains("security token is missing or stale", "still signed in");
        assertThat(browser.manage().getCookieNamed("outbox_console_session"))
                .as("the session cookie is kept")
                .isNotNull()
                .satisfies(kept -> assertThat(kept.getValue()).isEqualTo(cookie));
        open("/dead-letters");
        assertThat(text("sign-out")).isEqualTo("Sign out");

        browser.findElement(By.id("sign-out")).click();
        new WebDriverWait(browser, Duration.ofSeconds(10))
                .until(loaded -> loaded.manage().getCookieNamed("outbox_console_session") == null);
        open("/dead-letters");
        assertThat(browser.findElements(By.id("sign-out"))).isEmpty();
    }

    @Test
    @Order(9)
    @DisplayName("the overview groups the dead letters by cause, destination and type, and acts on one group")
    void groupsByCause() throws Exception {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String missing = "console-it-why-missing." + suffix;
        String unbound = "console-it-why-unbound." + suffix;
        try (Connection connection = rabbit.connectionFactory().newConnection();
                Channel channel = connection.createChannel()) {
            // an exchange with no queue bound: its events come back unroutable (NO_ROUTE)
            channel.exchangeDeclare(unbound, BuiltinExchangeType.TOPIC, false, false, null);
            List<OutboxEvent> missingA = List.of(
                    event("why.a", missing, null, "{\"n\":1}", 1),
                    event("why.a", missing, null, "{\"n\":2}", 1),
                    event("why.a", missing, null, "{\"n\":3}", 1));
            List<OutboxEvent> unboundB = List.of(
                    event("why.b", unbound, null, "{\"n\":4}", 1), event("why.b", unbound, null, "{\"n\":5}", 1));
            OutboxEvent unboundA = event("why.a", unbound, null, "{\"n\":6}", 1);
            append(missingA.toArray(OutboxEvent[]::new));
            append(unboundB.toArray(OutboxEvent[]::new));
            append(unboundA);
            for (OutboxEvent e : List.of(
                    missingA.get(0), missingA.get(1), missingA.get(2), unboundB.get(0), unboundB.get(1), unboundA)) {
                awaitStatus(e.id(), EventStatus.FAILED);
            }
            channel.exchangeDelete(unbound);

            signIn();
            open("");
            WebElement threeMissing = group(missing, "why.a");
            assertThat(threeMissing.findElement(By.className("group-count")).getText())
                    .isEqualTo("3");
            assertThat(threeMissing.getText()).contains("dead letters", "404");
            WebElement twoUnbound = group(unbound, "why.b");
            assertThat(twoUnbound.findElement(By.className("group-count")).getText())
                    .isEqualTo("2");
            assertThat(twoUnbound.getText()).contains("NO_ROUTE");
            WebElement oneUnbound = group(unbound, "why.a");
            assertThat(oneUnbound.findElement(By.className("group-count")).getText())
                    .isEqualTo("1");
            Browser.screenshot(browser, "overview");

            // the group's list holds exactly its dead letters
            threeMissing.findElement(By.className("group-list")).click();
            assertThat(text("match-count")).startsWith("3 dead letter(s) match");
            assertThat(text("filter-cause")).contains("404");

            // purge one group: asked first, then exactly its one event goes, and the audit names it
            open("");
            group(unbound, "why.a").findElement(By.className("group-purge")).click();
            assertThat(text("confirm-text")).contains("Delete 1 dead letter(s)");
            browser.findElement(By.id("confirm")).click();
            assertThat(text("notice")).contains("Purged 1 dead letter(s)");
            assertThat(store.find(unboundA.id())).isEmpty();
            assertThat(store.find(unboundB.get(0).id()).orElseThrow().status()).isEqualTo(EventStatus.FAILED);

            // requeue another: its two events go back to pending (and fail again against the missing exchange)
            open("");
            group(unbound, "why.b").findElement(By.className("group-requeue")).click();
            assertThat(text("notice")).contains("Requeued 2 dead letter(s)");
            for (OutboxEvent e : missingA) {
                assertThat(store.find(e.id()).orElseThrow().status()).isEqualTo(EventStatus.FAILED);
            }
            open("/audit");
            WebElement purged = browser.findElements(By.cssSelector("#audit tr")).stream()
                    .filter(row ->
                            row.getText().contains("purge") && row.getText().contains(unbound))
                    .findFirst()
                    .orElseThrow();
            purged.findElement(By.cssSelector("details.audit-ids summary")).click();
            assertThat(purged.getText()).contains(unboundA.id().toString());
            Browser.screenshot(browser, "audit");
        }
    }

    /** The overview's failure group of a destination and a type. */
    private WebElement group(String destination, String type) {
        return new WebDriverWait(browser, Duration.ofSeconds(10))
                .ignoring(StaleElementReferenceException.class)
                .withMessage(() -> "no group " + destination + " / " + type + " in " + text("failure-groups"))
                .until(loaded -> loaded.findElements(By.cssSelector("#failure-groups tr.failure-group")).stream()
                        .filter(row -> {
                            List<WebElement> cells = row.findElements(By.tagName("td"));
                            return cells.get(2).getText().equals(destination)
                                    && cells.get(3).getText().equals(type);
                        })
                        .findFirst()
                        .orElse(null));
    }

    @Test
    @Order(10)
    @DisplayName(
            "retrying events are retried or dead-lettered now; a dead letter says when and which budget stopped it")
    void retryNowAndDeadLetterNow() {
        String missing = "console-it-budget." + UUID.randomUUID().toString().substring(0, 8);
        // a budget of 10, but the unroutable-destination budget is 2: the second failure stops it
        OutboxEvent retried = event("budget.retried", missing, null, "{}", 10);
        OutboxEvent given = event("budget.given-up", missing, null, "{}", 10);
        append(retried, given);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> store.find(retried.id()).orElseThrow().attempts() == 1
                        && store.find(given.id()).orElseThrow().attempts() == 1);
        signIn();

        open("/retrying");
        browser.findElement(By.cssSelector("#retrying tr[data-id='" + retried.id() + "'] input[type=checkbox]"))
                .click();
        browser.findElement(By.id("retry-now")).click();
        assertThat(text("notice")).contains("Made 1 of 1 selected event(s) due now");
        awaitStatus(retried.id(), EventStatus.FAILED);
        assertThat(store.find(retried.id()).orElseThrow().attempts()).isEqualTo(2);

        open("/retrying");
        browser.findElement(By.cssSelector("#retrying tr[data-id='" + given.id() + "'] input[type=checkbox]"))
                .click();
        browser.findElement(By.id("dead-letter-now")).click();
        assertThat(text("notice")).contains("Dead-lettered 1 of 1 selected event(s)");
        assertThat(store.find(given.id()).orElseThrow().status()).isEqualTo(EventStatus.FAILED);

        open("/dead-letters/" + retried.id());
        assertThat(text("dead-lettered")).matches(MILLISECOND_TIME + " \\(.*ago\\)");
        assertThat(text("stopped-by")).contains("unroutable-destination budget of 2");
        assertThat(text("event")).doesNotContain("next attempt");
        Browser.screenshot(browser, "dead-letter");
        open("/dead-letters/" + given.id());
        assertThat(text("stopped-by")).contains("by an operator");

        open("/audit");
        assertThat(text("audit")).contains("retry-now", "dead-letter", "Ada (console)");
    }

    @Test
    @Order(11)
    @DisplayName(
            "filters match by part of a type, offer the values that exist, and the list says when each was dead-lettered")
    void filtersBySubstring() {
        long whyEvents = store.countDeadLetters(
                DeadLetterFilter.any().withType("why.").withMatch(DeadLetterFilter.TextMatch.CONTAINS));
        assertThat(whyEvents).isGreaterThanOrEqualTo(3);

        open("/dead-letters");
        assertThat(browser.findElements(By.cssSelector("#values-type option")))
                .extracting(option -> option.getAttribute("value"))
                .contains("why.a", "why.b", "budget.retried");
        browser.findElement(By.id("filter-type")).sendKeys("why.");
        browser.findElement(By.id("apply-filter")).click();

        assertThat(text("match-count")).startsWith(whyEvents + " dead letter(s) match (type~why.)");
        assertThat(text("dead-letters")).contains("dead-lettered").doesNotContain("budget.retried");
        List<WebElement> rows = browser.findElements(By.cssSelector("#dead-letters tr[data-id]"));
        assertThat(rows).hasSize((int) whyEvents);
        assertThat(rows.get(0).findElements(By.tagName("td")).get(7).getText())
                .matches(MILLISECOND_TIME + " \\(.*ago\\)");
        Browser.screenshot(browser, "dead-letters");
    }

    @Test
    @Order(12)
    @DisplayName("the audit keeps an edit's new payload beside the original")
    void editAuditedWithBoth() {
        open("/audit");
        WebElement edit = browser.findElements(By.cssSelector("#audit tr")).stream()
                .filter(row -> row.getText().contains("edit-requeue"))
                .reduce((newer, older) -> older) // the first edit: the sku fix
                .orElseThrow();
        edit.findElement(By.cssSelector("details.audit-original summary")).click();
        edit.findElement(By.cssSelector("details.audit-new summary")).click();
        assertThat(edit.findElement(By.cssSelector("details.audit-original")).getText())
                .contains("\"sku\" : \"typo\"");
        assertThat(edit.findElement(By.cssSelector("details.audit-new")).getText())
                .contains("\"sku\" : \"fixed\"", "fixed-by: Ada");
    }

    @Test
    @Order(13)
    @DisplayName(
            "the overview lists every worker, shows one that stopped beating as gone, refreshes itself and formats for people")
    void everyWorker() {
        Instant now = Instant.now();
        store.heartbeats()
                .beat(new WorkerHeartbeat(
                        UUID.randomUUID(),
                        "4242@old-host",
                        "old-host",
                        "0.0.9",
                        1,
                        "none",
                        "in place",
                        now.minus(Duration.ofHours(2)),
                        now.minus(Duration.ofHours(1)),
                        Duration.ofSeconds(10),
                        Optional.empty(),
                        Optional.of(new WorkerHeartbeat.Failure(now.minus(Duration.ofHours(1)), "broker down"))));

        // the sampler's first points take up to a minute: wait for the charts' time axis
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            open("");
            assertThat(browser.findElements(By.cssSelector("#chart-pending text.axis-time")))
                    .isNotEmpty();
        });

        List<WebElement> workers = browser.findElements(By.cssSelector("#workers tr.worker"));
        assertThat(workers)
                .extracting(WebElement::getText)
                .anySatisfy(row -> assertThat(row)
                        .startsWith("running")
                        .contains(ManagementFactory.getRuntimeMXBean().getName(), "per key"));
        assertThat(workers)
                .extracting(WebElement::getText)
                .anySatisfy(row -> assertThat(row).startsWith("gone").contains("4242@old-host", "broker down"));
        assertThat(text("read-at")).matches("read at " + MILLISECOND_TIME + ", again every \\d+ s");
        assertThat(browser.findElements(By.cssSelector("meta[http-equiv=refresh]")))
                .hasSize(1);
        String page = text("process") + text("backlog") + text("workers");
        assertThat(page).doesNotContain("Ordering[", "PER_KEY").contains("per key, a dead letter holds its key");
        assertThat(browser.findElement(By.cssSelector("#chart-pending text.axis-time"))
                        .getText())
                .matches("\\d\\d:\\d\\d:\\d\\d");
        browser.executeScript("arguments[0].scrollIntoView()", browser.findElement(By.id("workers")));
        Browser.screenshot(browser, "workers");
    }

    /** A time as the console writes it: UTC, to the millisecond. */
    private static final String MILLISECOND_TIME = "\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{3} UTC";

    /** Edits only the payload of one, only the headers of the other, as an operator does in the browser. */
    private void editBoth(OutboxEvent headersEdited, OutboxEvent payloadEdited) {
        open("/dead-letters/" + payloadEdited.id());
        // the real ESC is marked as a control character, the text of its escape is not
        List<WebElement> controls = browser.findElements(By.cssSelector("#payload span.control"));
        assertThat(controls).extracting(WebElement::getText).containsExactly("\\u001B");
        assertThat(text("payload")).isEqualTo("the text \\u001B, then ESC \\u001B");
        assertThat(text("edit-rule")).contains("ESC is \\u001B", "\\\\u001B", "Line breaks are LF");
        WebElement payload = browser.findElement(By.id("edit-payload"));
        payload.clear();
        payload.sendKeys("{\"fixed\":true}");
        browser.findElement(By.id("edit-requeue")).click();
        assertThat(text("notice")).contains("Saved and requeued");

        open("/dead-letters/" + headersEdited.id());
        assertThat(browser.findElements(By.cssSelector("#payload span.control")))
                .extracting(WebElement::getText)
                .containsExactly("\\u000D", "\\u001B");
        WebElement headers = browser.findElement(By.id("edit-headers"));
        headers.click();
        headers.sendKeys(Keys.chord(Keys.CONTROL, Keys.END), "fixed-by: Ada");
        browser.findElement(By.id("edit-requeue")).click();
        assertThat(text("notice")).contains("Saved and requeued");
    }
}
