package dev.outboxjava.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxjava.core.InvalidConfigurationException;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.memory.InMemoryOutboxStore;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** A console of many outboxes over HTTP on in-memory stores: the list, an outbox found later, labels escaped. */
class ManyOutboxesConsoleTest {

    private final List<ConsoleOutbox> outboxes = new CopyOnWriteArrayList<>();
    private ConsoleServer server;
    private final HttpClient client = HttpClient.newHttpClient();

    @BeforeEach
    void start() {
        InMemoryOutboxStore store = new InMemoryOutboxStore();
        store.append(OutboxEvent.builder()
                .type("order.placed")
                .destination("orders")
                .payload("{}".getBytes(StandardCharsets.UTF_8))
                .build());
        outboxes.add(ConsoleOutbox.of("tenant_a.outbox", store));
        server = OutboxConsole.forOutboxes(() -> outboxes).build().start("127.0.0.1", 0);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private HttpResponse<String> get(String path) throws Exception {
        return client.send(
                HttpRequest.newBuilder(URI.create(server.url() + path)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    @DisplayName("an outbox that appears while the console runs is listed and served at once")
    void outboxFoundLater() throws Exception {
        assertThat(get("/outboxes/tenant_b.outbox").statusCode()).isEqualTo(404);

        outboxes.add(ConsoleOutbox.of("tenant_b.outbox", new InMemoryOutboxStore()));

        assertThat(get("").body()).contains("data-outbox=\"tenant_a.outbox\"", "data-outbox=\"tenant_b.outbox\"");
        HttpResponse<String> overview = get("/outboxes/tenant_b.outbox");
        assertThat(overview.statusCode()).isEqualTo(200);
        assertThat(overview.body())
                .contains(
                        "id=\"nav-outbox\">tenant_b.outbox<",
                        "href=\"/console/outboxes/tenant_b.outbox/dead-letters\"");
    }

    @Test
    @DisplayName("a label is escaped on the list and in the header, and encoded in its links")
    void labelEscaped() throws Exception {
        outboxes.add(ConsoleOutbox.of("<b>\"x\"", new InMemoryOutboxStore()));

        String list = get("").body();

        assertThat(list).doesNotContain("<b>\"x\"").contains("&lt;b&gt;", "/console/outboxes/%3Cb%3E%22x%22");
        HttpResponse<String> page = get("/outboxes/%3Cb%3E%22x%22/dead-letters");
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).doesNotContain("<b>\"x\"");
    }

    @Test
    @DisplayName("the pages of one store stay under the base path: a console of one outbox has no list")
    void oneStoreUnchanged() throws Exception {
        try (ConsoleServer one =
                OutboxConsole.builder(new InMemoryOutboxStore()).build().start("127.0.0.1", 0)) {
            HttpResponse<String> overview = client.send(
                    HttpRequest.newBuilder(URI.create(one.url())).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(overview.body()).contains("count-pending").doesNotContain("nav-outboxes");
        }
    }

    @Test
    @DisplayName("a console of many outboxes refuses a sampler: it charts one store")
    void noSampler() {
        ActivitySampler sampler = new ActivitySampler(new InMemoryOutboxStore(), () -> 0, java.time.Clock.systemUTC());
        assertThatThrownBy(() ->
                        OutboxConsole.forOutboxes(List::of).sampler(sampler).build())
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("sampler");
    }
}
