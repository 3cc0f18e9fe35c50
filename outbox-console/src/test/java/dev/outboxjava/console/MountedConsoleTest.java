package dev.outboxjava.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.memory.InMemoryOutboxStore;
import io.javalin.Javalin;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The console mounted in an application's own Javalin, beside the application's routes. */
class MountedConsoleTest {

    @Test
    @DisplayName(
            "mounted in an application's Javalin, the console serves under /console beside the application's routes")
    void mounted() throws Exception {
        InMemoryOutboxStore store = new InMemoryOutboxStore();
        // tag::console-mount[]
        OutboxConsole console = OutboxConsole.builder(store) // a PostgresOutboxStore in production
                .adminCredential(System.getenv("OUTBOX_CONSOLE_ADMIN_TOKEN")) // unset: read-only
                .build();
        Javalin app = Javalin.create(config -> {
                    config.routes.get("/orders", ctx -> ctx.result("the application's own route"));
                    console.mount(config); // pages under /console
                })
                .start("127.0.0.1", 0);
        // end::console-mount[]
        try {
            HttpClient client = HttpClient.newHttpClient();
            String base = "http://127.0.0.1:" + app.port();
            HttpResponse<String> overview = client.send(
                    HttpRequest.newBuilder(URI.create(base + "/console")).build(),
                    HttpResponse.BodyHandlers.ofString());
            HttpResponse<String> own = client.send(
                    HttpRequest.newBuilder(URI.create(base + "/orders")).build(), HttpResponse.BodyHandlers.ofString());

            assertThat(overview.statusCode()).isEqualTo(200);
            assertThat(overview.body()).contains("Outbox console", "count-pending");
            assertThat(own.body()).isEqualTo("the application's own route");
            assertThat(own.headers().firstValue("Content-Security-Policy"))
                    .as("the console's headers stay its own")
                    .isEmpty();
        } finally {
            app.stop();
        }
    }
}
