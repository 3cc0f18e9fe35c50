package dev.outboxjava.relayapp.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.testkit.fixture.ChildJvm;
import dev.outboxjava.worker.testsupport.TcpProxy;
import dev.outboxjava.worker.testsupport.WorkerFixture;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The standalone jar started while its database is down (a proxy in front of the shared PostgreSQL
 * that refuses this worker's connections): it waits, live and not ready, instead of exiting, and
 * relays once the database answers. Settings the database refuses still end the start at once.
 */
@DisplayName("The standalone worker started while its database is down")
class StartDuringDatabaseOutageIT {

    @RegisterExtension
    static final WorkerFixture fixture = new WorkerFixture("start-outage-it");

    private Map<String, String> environment(String databaseUrl, int httpPort) {
        return WorkerJar.rabbitMqEnvironment(
                fixture, databaseUrl, fixture.rabbit().uri(), httpPort);
    }

    /** The status of {@code path}, or -1 while nothing answers on the port yet. */
    private static int status(int port, String path) {
        try {
            return HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                                    .timeout(Duration.ofSeconds(10))
                                    .build(),
                            HttpResponse.BodyHandlers.discarding())
                    .statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    @Test
    @DisplayName("waits live and not ready, logs once that it waits, and relays once the database answers")
    void waitsForTheDatabaseThenRelays() throws Exception {
        List<UUID> ids = fixture.table().append(200, fixture.destination().exchange(), "order.placed");
        URI database = URI.create(fixture.postgres().jdbcUrl().substring("jdbc:".length()));
        int httpPort = WorkerJar.freePort();
        try (TcpProxy proxy = new TcpProxy(database.getHost(), database.getPort() == -1 ? 5432 : database.getPort())) {
            proxy.cut(); // the database is down before the worker starts
            Map<String, String> env =
                    environment("jdbc:postgresql://127.0.0.1:" + proxy.port() + database.getPath(), httpPort);
            try (ChildJvm worker = WorkerJar.start("start-during-database-outage", env, "run")) {
                await().atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(200))
                        .untilAsserted(() -> {
                            assertThat(worker.isAlive())
                                    .as("worker alive; log:\n%s", worker.output())
                                    .isTrue();
                            assertThat(status(httpPort, "/health"))
                                    .as("live while it waits")
                                    .isEqualTo(200);
                        });
                // a process that gave up would be gone by now: the probe fails within a second
                await().during(Duration.ofSeconds(5))
                        .atMost(Duration.ofSeconds(10))
                        .untilAsserted(() -> {
                            assertThat(worker.isAlive())
                                    .as("still waiting; log:\n%s", worker.output())
                                    .isTrue();
                            assertThat(status(httpPort, "/health/ready"))
                                    .as("not ready while it waits")
                                    .isEqualTo(503);
                            assertThat(status(httpPort, "/health")).isEqualTo(200);
                        });
                assertThat(fixture.inbox().ids().size()).isZero();
                assertThat(worker.linesContaining("waiting for it"))
                        .as(worker.output())
                        .isEqualTo(1);

                proxy.restore();

                await().atMost(Duration.ofMinutes(2))
                        .pollInterval(Duration.ofMillis(200))
                        .untilAsserted(() -> {
                            assertThat(worker.isAlive())
                                    .as("worker alive; log:\n%s", worker.output())
                                    .isTrue();
                            assertThat(fixture.inbox().ids())
                                    .containsAll(
                                            ids.stream().map(UUID::toString).collect(Collectors.toSet()));
                        });
                await().atMost(Duration.ofSeconds(30)).until(() -> status(httpPort, "/health/ready") == 200);
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> fixture.table().count(EventStatus.SENT) == ids.size());
                assertThat(worker.output()).contains("reachable after").contains("outbox worker started");
                assertThat(worker.linesContaining("waiting for it")).isEqualTo(1);
                worker.terminate();
                worker.waitFor(Duration.ofSeconds(20));
            }
        }
    }

    @Test
    @DisplayName("a database the server does not have ends the start at once with exit code 3: waiting cannot fix it")
    void exitsForSettingsTheDatabaseRefuses() {
        URI database = URI.create(fixture.postgres().jdbcUrl().substring("jdbc:".length()));
        String missing =
                "jdbc:postgresql://" + database.getHost() + ":" + (database.getPort() == -1 ? 5432 : database.getPort())
                        + "/no_such_database_" + UUID.randomUUID().toString().substring(0, 8);

        WorkerJar.Result result =
                WorkerJar.run("start-with-missing-database", environment(missing, 0), Duration.ofSeconds(60), "run");

        assertThat(result.exitCode()).as(result.output()).isEqualTo(3);
        assertThat(result.output()).contains("does not exist").doesNotContain("waiting for it");
    }

    @Test
    @DisplayName("SIGTERM while it waits for a database that accepts connections but never answers ends it, with "
            + "one line saying so, without waiting for the connection attempt under way")
    void stopsWhileWaiting() throws Exception {
        int httpPort = WorkerJar.freePort();
        try (TcpProxy proxy = new TcpProxy("127.0.0.1", 5432)) {
            proxy.freeze(); // connections are accepted and hang: each attempt waits for its timeout
            URI database = URI.create(fixture.postgres().jdbcUrl().substring("jdbc:".length()));
            Map<String, String> env =
                    environment("jdbc:postgresql://127.0.0.1:" + proxy.port() + database.getPath(), httpPort);
            try (ChildJvm worker = WorkerJar.start("stop-while-waiting", env, "run")) {
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> worker.linesContaining("waiting for it") == 1 || !worker.isAlive());
                assertThat(worker.isAlive()).as(worker.output()).isTrue();

                worker.terminate();

                int status = worker.waitFor(Duration.ofSeconds(20));
                assertThat(status)
                        .as("ended by SIGTERM after its shutdown hook ran (128 + 15); log:\n%s", worker.output())
                        .isEqualTo(143);
                assertThat(worker.linesContaining("stopped while waiting for the database at"))
                        .as(worker.output())
                        .isEqualTo(1);
                assertThat(worker.output())
                        .as("the pool's close does not wait for the connection attempt under way")
                        .doesNotContain("Timed-out waiting for add connection executor")
                        .doesNotContain("MeterFilter");
            }
        }
    }
}
