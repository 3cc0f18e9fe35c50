package dev.outboxjava.examples.springboot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

@DisplayName("The orders service on its embedded defaults")
class OrdersApplicationIT {

    @Test
    @DisplayName("POST /orders stores the order and the relay publishes its event; a refused order publishes nothing")
    void placeOrder() throws Exception {
        try (ConfigurableApplicationContext app = EmbeddedServices.start("--server.port=0")) {
            int port = ((WebServerApplicationContext) app).getWebServer().getPort();
            HttpClient http = HttpClient.newHttpClient();
            HttpResponse<String> placed = http.send(post(port, 1), HttpResponse.BodyHandlers.ofString());
            HttpResponse<String> refused = http.send(post(port, 0), HttpResponse.BodyHandlers.ofString());

            assertThat(placed.statusCode()).isEqualTo(201);
            assertThat(refused.statusCode()).isEqualTo(400);
            JdbcTemplate jdbc = app.getBean(JdbcTemplate.class);
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> jdbc.queryForObject("SELECT count(*) FROM outbox_events_sent", Long.class) == 1);
            assertThat(jdbc.queryForObject("SELECT count(*) FROM outbox_events", Long.class))
                    .isEqualTo(1);
            assertThat(jdbc.queryForObject("SELECT count(*) FROM orders", Long.class))
                    .isEqualTo(1);
        }
    }

    private static HttpRequest post(int port, int quantity) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/orders"))
                .header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(
                        "{\"customer\":\"ada\",\"sku\":\"book\",\"quantity\":" + quantity + "}"))
                .build();
    }
}
