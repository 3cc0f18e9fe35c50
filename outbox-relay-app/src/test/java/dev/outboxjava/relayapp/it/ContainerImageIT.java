package dev.outboxjava.relayapp.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.outboxjava.core.EventStatus;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
    private static final Path ROOT = Path.of("").toAbsolutePath().resolve("..").normalize();
    private static final String IMAGE_JAR = "/opt/outbox/outbox-worker.jar";
    private static final Pattern INSTRUCTION =
            Pattern.compile("^(FROM|ENV|ENTRYPOINT|CMD|HEALTHCHECK|EXPOSE|USER)\\s+(.*)$");
    private static final Pattern ENV_PAIR = Pattern.compile("(\\w+)=(\\S+)");

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
        JsonNode deployment = kubernetes("Deployment");
        JsonNode container = deployment.at("/spec/template/spec/containers/0");
        Map<String, String> configMap = fields(kubernetes("ConfigMap").get("data"));
        Map<String, String> secret = fields(kubernetes("Secret").get("stringData"));

        assertThat(image.user()).as("USER of the runtime stage").isNotBlank().isNotIn("root", "0");
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

    private static JsonNode kubernetes(String kind) throws IOException {
        ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
        try (MappingIterator<JsonNode> documents = yaml.readerFor(JsonNode.class)
                .readValues(ROOT.resolve("deploy/kubernetes/outbox-worker.yaml").toFile())) {
            while (documents.hasNext()) {
                JsonNode document = documents.next();
                if (document != null && kind.equals(document.path("kind").asText())) {
                    return document;
                }
            }
        }
        throw new AssertionError("deploy/kubernetes/outbox-worker.yaml has no " + kind);
    }

    private static Map<String, String> fields(JsonNode node) {
        Map<String, String> fields = new LinkedHashMap<>();
        node.fields()
                .forEachRemaining(
                        field -> fields.put(field.getKey(), field.getValue().asText()));
        return fields;
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

    /** The instructions of the Dockerfile's last stage that decide what the container runs. */
    record RuntimeStage(
            Map<String, String> environment,
            List<String> entrypoint,
            List<String> command,
            List<String> healthCheck,
            List<String> exposed,
            String user) {

        static RuntimeStage read(Path dockerfile) throws IOException {
            List<String> instructions = joinContinuations(Files.readAllLines(dockerfile));
            int lastFrom = 0;
            for (int i = 0; i < instructions.size(); i++) {
                if (instructions.get(i).startsWith("FROM ")) {
                    lastFrom = i;
                }
            }
            Map<String, String> environment = new LinkedHashMap<>();
            List<String> entrypoint = List.of();
            List<String> command = List.of();
            List<String> healthCheck = List.of();
            List<String> exposed = new ArrayList<>();
            String user = "";
            for (String instruction : instructions.subList(lastFrom, instructions.size())) {
                Matcher matcher = INSTRUCTION.matcher(instruction);
                if (!matcher.matches()) {
                    continue;
                }
                String argument = matcher.group(2).trim();
                switch (matcher.group(1)) {
                    case "ENV" -> {
                        Matcher pair = ENV_PAIR.matcher(argument);
                        while (pair.find()) {
                            environment.put(pair.group(1), pair.group(2));
                        }
                    }
                    case "ENTRYPOINT" -> entrypoint = jsonArray(argument);
                    case "CMD" -> command = jsonArray(argument);
                    case "HEALTHCHECK" -> healthCheck = jsonArray(argument.substring(argument.indexOf("CMD ") + 4));
                    case "EXPOSE" -> exposed.addAll(List.of(argument.split("\\s+")));
                    case "USER" -> user = argument;
                    default -> {}
                }
            }
            return new RuntimeStage(environment, entrypoint, command, healthCheck, exposed, user);
        }

        private static List<String> joinContinuations(List<String> lines) {
            List<String> instructions = new ArrayList<>();
            StringBuilder current = new StringBuilder();
            for (String line : lines) {
                String trimmed = line.strip();
                if (trimmed.startsWith("#") || trimmed.isEmpty() && current.length() == 0) {
                    continue;
                }
                boolean continues = trimmed.endsWith("\\");
                current.append(continues ? trimmed.substring(0, trimmed.length() - 1) : trimmed)
                        .append(' ');
                if (!continues) {
                    instructions.add(current.toString().strip());
                    current.setLength(0);
                }
            }
            return instructions;
        }

        /** Exec form only: a shell form would put {@code sh -c} between the signal and the JVM. */
        private static List<String> jsonArray(String argument) {
            try {
                List<String> values = new ArrayList<>();
                new ObjectMapper().readTree(argument).forEach(node -> values.add(node.asText()));
                return values;
            } catch (IOException e) {
                throw new AssertionError("not in exec (JSON array) form: " + argument, e);
            }
        }
    }
}
