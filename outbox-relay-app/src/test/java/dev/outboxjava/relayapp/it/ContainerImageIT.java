package dev.outboxjava.relayapp.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.outboxjava.core.EventStatus;
import dev.outboxjava.relayapp.deploy.Manifest;
import dev.outboxjava.relayapp.deploy.RuntimeStage;
import dev.outboxjava.testkit.fixture.BrokerInbox;
import dev.outboxjava.testkit.postgres.PostgresFixture;
import dev.outboxjava.testkit.rabbitmq.RabbitMqDestination;
import dev.outboxjava.testkit.rabbitmq.RabbitMqFixture;
import dev.outboxjava.worker.testsupport.OutboxTable;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * There is no container engine on the build machines, so the image is checked by what it would run:
 * the runtime stage of the repository's {@code Dockerfile} (its environment, entrypoint, command and
 * health check) and the sample Kubernetes Deployment (its settings, probes and grace period) are read
 * and the same command is run on the built jar against the real PostgreSQL and RabbitMQ.
 */
@DisplayName("The container image and the Kubernetes sample")
class ContainerImageIT {

    private static final Logger log = LoggerFactory.getLogger(ContainerImageIT.class);
    private static final Path ROOT = Manifest.ROOT;
    private static final String IMAGE_JAR = "/opt/outbox/outbox-worker.jar";

    private static PostgresFixture postgres;
    private static RabbitMqFixture rabbit;

    @BeforeAll
    static void services() {
        postgres = PostgresFixture.shared();
        rabbit = RabbitMqFixture.start();
    }

    @AfterAll
    static void stopServices() {
        rabbit.close();
    }

    @Test
    @DisplayName(
            "runs the jar as its entrypoint says: health check and probes answer, events are published, SIGTERM drains in the grace period")
    void entrypointRunsTheWorker() throws Exception {
        RuntimeStage image = RuntimeStage.read(ROOT.resolve("Dockerfile"));
        Manifest manifest = Manifest.read(Manifest.SAMPLE);
        JsonNode deployment = manifest.kind("Deployment");
        JsonNode container = deployment.at("/spec/template/spec/containers/0");
        Map<String, String> configMap =
                Manifest.fields(manifest.kind("ConfigMap").get("data"));
        Map<String, String> secret = Manifest.fields(manifest.kind("Secret").get("stringData"));

        assertThat(image.uid())
                .as("numeric USER of the runtime stage")
                .hasValueSatisfying(uid -> assertThat(uid).isPositive());
        assertThat(image.entrypoint()).as("ENTRYPOINT").startsWith("java").contains("-jar", IMAGE_JAR);
        int imagePort = Integer.parseInt(image.environment().get("OUTBOX_HTTP_PORT"));
        assertThat(image.exposed()).contains(String.valueOf(imagePort));
        URI healthCheck = URI.create(image.healthCheck().stream()
                .filter(arg -> arg.startsWith("http://"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("HEALTHCHECK names no URL: " + image.healthCheck())));
        assertThat(healthCheck.getPort()).isEqualTo(imagePort);
        assertThat(container.at("/ports/0/containerPort").asInt()).isEqualTo(imagePort);
        assertThat(container.get("args").get(0).asText())
                .isEqualTo(image.command().get(0));
        assertThat(secret)
                .as("the password comes from the Secret, not the ConfigMap")
                .containsKey("OUTBOX_DB_PASSWORD");
        assertThat(configMap).doesNotContainKey("OUTBOX_DB_PASSWORD");

        Duration shutdownTimeout = Duration.ofSeconds(
                Long.parseLong(configMap.get("OUTBOX_SHUTDOWN_TIMEOUT").replace("s", "")));
        long grace = deployment
                .at("/spec/template/spec/terminationGracePeriodSeconds")
                .asLong();
        assertThat(Duration.ofSeconds(grace))
                .as("grace period vs OUTBOX_SHUTDOWN_TIMEOUT")
                .isGreaterThanOrEqualTo(shutdownTimeout.plusSeconds(10));

        // The documented settings, with the addresses of this machine's services in place of the sample's.
        OutboxTable table = new OutboxTable(postgres);
        RabbitMqDestination destination = rabbit.createDestination("image-it");
        int port = freePort();
        Map<String, String> env = new HashMap<>(image.environment());
        env.putAll(configMap);
        env.putAll(secret);
        env.put("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
        env.put("OUTBOX_DB_URL", postgres.jdbcUrl());
        env.put("OUTBOX_DB_USER", postgres.user());
        env.put("OUTBOX_DB_PASSWORD", postgres.password());
        env.put("OUTBOX_TABLE", table.name);
        env.put("OUTBOX_BROKER", "rabbitmq");
        env.remove("OUTBOX_KAFKA_BOOTSTRAP_SERVERS");
        env.put("OUTBOX_RABBITMQ_URI", rabbit.uri());
        env.put("OUTBOX_HTTP_PORT", String.valueOf(port)); // 8080 may be taken on a build machine
        List<String> command = new ArrayList<>();
        for (String arg : image.entrypoint()) {
            command.add(
                    arg.equals("java")
                            ? Path.of(System.getProperty("java.home"), "bin", "java")
                                    .toString()
                            : arg.equals(IMAGE_JAR) ? WorkerJar.jar().toString() : arg);
        }
        command.addAll(image.command());

        try (BrokerInbox inbox = BrokerInbox.amqp(rabbit.connectionFactory(), destination.queue())) {
            List<UUID> ids = table.append(2000, destination.exchange(), "order.placed");
            Path output = Files.createTempFile("outbox-image-it-", ".log");
            ProcessBuilder builder =
                    new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile());
            builder.environment().clear();
            builder.environment().putAll(env);
            Process process = builder.start();
            try {
                await().atMost(Duration.ofMinutes(3))
                        .pollInterval(Duration.ofMillis(250))
                        .untilAsserted(() -> {
                            assertThat(process.isAlive())
                                    .as("worker alive; output:\n%s", Files.readString(output))
                                    .isTrue();
                            assertThat(inbox.ids())
                                    .containsAll(
                                            ids.stream().map(UUID::toString).collect(Collectors.toSet()));
                        });
                await().atMost(Duration.ofSeconds(30)).until(() -> table.count(EventStatus.SENT) == ids.size());
                String base = "http://127.0.0.1:" + port;
                assertThat(status(base + healthCheck.getPath()))
                        .as("HEALTHCHECK " + healthCheck.getPath())
                        .isEqualTo(200);
                assertThat(status(base
                                + container.at("/livenessProbe/httpGet/path").asText()))
                        .isEqualTo(200);
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> status(base
                                        + container
                                                .at("/readinessProbe/httpGet/path")
                                                .asText())
                                == 200);
                log.info(
                        "worker resident set after draining {} events: {} MiB", ids.size(), residentMiB(process.pid()));

                process.destroy(); // SIGTERM, as the kubelet sends it
                assertThat(process.waitFor(grace, TimeUnit.SECONDS))
                        .as(
                                "exit within terminationGracePeriodSeconds=%d; output:\n%s",
                                grace, Files.readString(output))
                        .isTrue();
            } finally {
                process.destroyForcibly();
                rabbit.delete(destination);
                table.close();
            }
        }
    }

    private static int status(String url) throws Exception {
        return HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(url))
                                .timeout(Duration.ofSeconds(10))
                                .build(),
                        HttpResponse.BodyHandlers.discarding())
                .statusCode();
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static long residentMiB(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(pid), "status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("\\D", "")) / 1024;
            }
        }
        return -1;
    }
}
