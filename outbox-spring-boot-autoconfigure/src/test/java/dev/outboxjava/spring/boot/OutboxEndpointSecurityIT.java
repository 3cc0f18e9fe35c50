package dev.outboxjava.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.security.config.Customizer.withDefaults;

import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.AuditEntry;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.spring.boot.app.OrderService;
import dev.outboxjava.spring.boot.app.ShopApplication;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.OptionalLong;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The operator endpoint over HTTP behind the application's Spring Security rules: reading needs a
 * viewer, requeueing an operator. A write-only service (no relay), so no broker is needed.
 */
@SpringBootTest(
        classes = {ShopApplication.class, OutboxEndpointSecurityIT.Security.class},
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DisplayName("The outbox actuator endpoint behind Spring Security")
class OutboxEndpointSecurityIT {

    static final ShopDatabase database = new ShopDatabase();

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        database.properties().forEach((key, value) -> registry.add(key, () -> value));
        registry.add("outbox.relay.enabled", () -> "false");
        registry.add("management.endpoints.web.exposure.include", () -> "health,outbox");
        registry.add("management.endpoint.outbox.access", () -> "unrestricted");
    }

    @AfterAll
    static void dropSchema() {
        database.drop();
    }

    @TestConfiguration(proxyBeanMethods = false)
    static class Security {
        @Bean
        SecurityFilterChain actuatorSecurity(HttpSecurity http) throws Exception {
            return http.authorizeHttpRequests(requests -> requests.requestMatchers(
                                    HttpMethod.GET, "/actuator/outbox/**", "/actuator/outbox")
                            .hasRole("VIEWER")
                            .requestMatchers("/actuator/outbox/**")
                            .hasRole("OPERATOR")
                            .anyRequest()
                            .permitAll())
                    .httpBasic(withDefaults())
                    .csrf(csrf -> csrf.disable())
                    .build();
        }

        @Bean
        InMemoryUserDetailsManager users() {
            return new InMemoryUserDetailsManager(
                    User.withUsername("viewer")
                            .password("{noop}viewer")
                            .roles("VIEWER")
                            .build(),
                    User.withUsername("operator")
                            .password("{noop}operator")
                            .roles("VIEWER", "OPERATOR")
                            .build());
        }
    }

    @Autowired
    ApplicationContext context;

    @Autowired
    OrderService orders;

    @Autowired
    SpringOutbox outbox;

    @Autowired
    TransactionTemplate transactions;

    private final HttpClient http = HttpClient.newHttpClient();

    private HttpResponse<String> call(String method, String path, String user, String body) throws Exception {
        int port = ((WebServerApplicationContext) context).getWebServer().getPort();
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("content-type", "application/json")
                .method(
                        method,
                        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (user != null) {
            request.header(
                    "authorization",
                    "Basic "
                            + Base64.getEncoder().encodeToString((user + ":" + user).getBytes(StandardCharsets.UTF_8)));
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Autowired
    PostgresOutboxStore store;

    @Test
    @DisplayName("refuses strangers, lets a viewer read but not requeue, and an operator requeue a dead letter, "
            + "audited as done by that operator")
    void requeueNeedsAnOperator() throws Exception {
        OutboxEvent event = orders.orderPlaced(UUID.randomUUID());
        transactions.executeWithoutResult(status -> outbox.append(event));
        database.execute("UPDATE " + database.table + " SET status = 'failed', attempts = max_attempts, "
                + "last_error = 'broker said no' WHERE id = '" + event.id() + "'");
        String requeue = "{\"id\": \"" + event.id() + "\"}";

        assertThat(call("GET", "/actuator/outbox", null, null).statusCode()).isEqualTo(401);
        HttpResponse<String> status = call("GET", "/actuator/outbox", "viewer", null);
        assertThat(status.statusCode()).isEqualTo(200);
        assertThat(status.body()).contains("\"failed\":1");
        assertThat(call("GET", "/actuator/outbox/dead-letters?limit=10", "viewer", null)
                        .body())
                .contains(event.id().toString())
                .contains("broker said no");
        assertThat(call("POST", "/actuator/outbox/requeue", "viewer", requeue).statusCode())
                .isEqualTo(403);
        assertThat(database.events("failed")).isEqualTo(1);

        HttpResponse<String> requeued = call("POST", "/actuator/outbox/requeue", "operator", requeue);

        assertThat(requeued.statusCode()).isEqualTo(200);
        assertThat(requeued.body()).contains("\"requeued\":1");
        assertThat(database.events("failed")).isZero();
        assertThat(database.events("pending")).isEqualTo(1);
        assertThat(store.auditTrail(OptionalLong.empty(), 10)).anySatisfy(entry -> {
            assertThat(entry.actor()).isEqualTo("operator");
            assertThat(entry.action()).isEqualTo(AuditEntry.REQUEUE);
            assertThat(entry.affected()).isEqualTo(1);
        });
    }

    @Test
    @DisplayName("a purge by an operator is audited as done by that operator, with what it deleted")
    void purgeIsAudited() throws Exception {
        OutboxEvent event = orders.orderPlaced(UUID.randomUUID());
        transactions.executeWithoutResult(status -> outbox.append(event));
        database.execute("UPDATE " + database.table + " SET status = 'failed', attempts = max_attempts, "
                + "last_error = 'broker said no' WHERE id = '" + event.id() + "'");
        String purge =
                "{\"status\": \"failed\", \"createdBefore\": \"" + Instant.now().plusSeconds(60) + "\"}";

        HttpResponse<String> purged = call("POST", "/actuator/outbox/purge", "operator", purge);

        assertThat(purged.statusCode()).isEqualTo(200);
        assertThat(purged.body()).contains("\"purged\":1");
        assertThat(database.events("failed")).isZero();
        assertThat(store.auditTrail(OptionalLong.empty(), 10)).anySatisfy(entry -> {
            assertThat(entry.actor()).isEqualTo("operator");
            assertThat(entry.action()).isEqualTo(AuditEntry.PURGE);
            assertThat(entry.affected()).isEqualTo(1);
        });
    }
}
