package dev.outboxjava.examples.springboot;

import dev.outboxjava.testkit.kafka.EmbeddedKafkaBroker;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The crash check of the Spring Boot service: orders go in over HTTP to instance #1, which is killed
 * with SIGKILL half-way (its relay mid-drain, leases held, HTTP requests cut off); instance #2 takes
 * over on the same database and receives the rest of the orders. At the end every order row in the
 * database (the source of truth: a request whose answer was lost may still have committed) must have
 * its event on Kafka. Exit code 0 only when nothing was lost.
 *
 * <pre>
 * mvn -B -q -pl examples-spring-boot -am verify -DskipTests -Pcrash-check [-Ddemo.args="--orders 3000"]
 * </pre>
 */
public final class CrashCheck {

    /** What one run found. */
    public record Result(int committed, int published, int lost, int duplicates) {}

    private final PrintStream out;
    private final int orders;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    CrashCheck(PrintStream out, int orders) {
        this.out = out;
        this.orders = orders;
    }

    public static void main(String[] args) throws Exception {
        int orders = args.length == 2 && args[0].equals("--orders") ? Integer.parseInt(args[1]) : 2000;
        Result result = new CrashCheck(System.out, orders).run();
        System.exit(result.lost() == 0 ? 0 : 1);
    }

    /** Runs the check on an embedded PostgreSQL and an in-process Kafka broker. */
    public Result run() throws Exception {
        try (EmbeddedPostgres postgres = EmbeddedPostgres.builder().start();
                EmbeddedKafkaBroker kafka = EmbeddedKafkaBroker.start()) {
            kafka.createTopic(OrderService.TOPIC, 3);
            String jdbcUrl = postgres.getJdbcUrl("postgres", "postgres");
            out.println("embedded PostgreSQL on port " + postgres.getPort() + ", Kafka at " + kafka.bootstrapServers());

            Instance first = Instance.start(jdbcUrl, kafka.bootstrapServers(), 1);
            AtomicInteger accepted = new AtomicInteger();
            await(first);
            // orders keep coming in while instance #1 is killed: requests and the relay are cut off mid-way
            java.util.concurrent.atomic.AtomicBoolean killed = new java.util.concurrent.atomic.AtomicBoolean();
            Thread load = new Thread(
                    () -> {
                        try {
                            place(first, Integer.MAX_VALUE, accepted, killed);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    },
                    "orders-to-instance-1");
            load.start();
            while (accepted.get() < orders / 2) {
                Thread.sleep(10);
            }
            out.println("instance #1: " + accepted.get() + " orders accepted; events not yet sent: "
                    + count(jdbcUrl, "SELECT count(*) FROM outbox_events_events WHERE status <> 'sent'")
                    + "; killing it with SIGKILL while orders keep coming");
            first.process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            killed.set(true);
            load.join();

            Instance second = Instance.start(jdbcUrl, kafka.bootstrapServers(), 2);
            try {
                await(second);
                place(
                        second,
                        Math.max(0, orders - accepted.get()),
                        accepted,
                        new java.util.concurrent.atomic.AtomicBoolean());
                out.println("instance #2: " + accepted.get() + " orders accepted in all; waiting for the events");
                int committed = (int) count(jdbcUrl, "SELECT count(*) FROM orders");
                Set<String> expected = orderIds(jdbcUrl);
                Map<String, Integer> seen = consume(kafka.bootstrapServers(), expected, Duration.ofMinutes(2));
                int lost = (int)
                        expected.stream().filter(id -> !seen.containsKey(id)).count();
                int duplicates = seen.values().stream().mapToInt(n -> n - 1).sum();
                Result result = new Result(committed, seen.size(), lost, duplicates);
                out.println("committed orders " + committed + ", their events on Kafka " + (committed - lost)
                        + ", lost " + lost + ", duplicates " + duplicates
                        + " (re-published after the kill; consumers deduplicate by event id)");
                out.println(lost == 0 ? "OK: nothing lost" : "FAILED: " + lost + " committed order(s) never published");
                return result;
            } finally {
                second.process.destroy();
                second.process.waitFor(30, TimeUnit.SECONDS);
            }
        }
    }

    /** A child JVM running the service with this JVM's class path. */
    private record Instance(Process process, int port, Path log) {
        static Instance start(String jdbcUrl, String kafka, int number) throws IOException {
            int port;
            try (ServerSocket socket = new ServerSocket(0)) {
                port = socket.getLocalPort();
            }
            Path log = Files.createTempFile("orders-instance-" + number + "-", ".log");
            String java =
                    Path.of(System.getProperty("java.home"), "bin", "java").toString();
            Process process = new ProcessBuilder(
                            java,
                            "-cp",
                            System.getProperty("java.class.path"),
                            OrdersApplication.class.getName(),
                            "--server.port=" + port,
                            "--spring.datasource.url=" + jdbcUrl,
                            "--spring.datasource.username=postgres",
                            "--spring.datasource.password=postgres",
                            "--spring.kafka.bootstrap-servers=" + kafka)
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
            return new Instance(process, port, log);
        }
    }

    private void await(Instance instance) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        while (System.nanoTime() < deadline) {
            if (!instance.process.isAlive()) {
                throw new IllegalStateException("instance exited; see " + instance.log);
            }
            try {
                HttpResponse<String> health = http.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + instance.port + "/actuator/health"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                if (health.statusCode() == 200) {
                    out.println("instance on port " + instance.port + " is up (log: " + instance.log + ")");
                    return;
                }
            } catch (IOException notYet) {
                // still starting
            }
            Thread.sleep(500);
        }
        throw new IllegalStateException("instance did not start within 3 minutes; see " + instance.log);
    }

    /**
     * Places up to {@code count} orders from four threads until {@code stop}; a failed request is not
     * retried (its order may or may not have committed).
     */
    private void place(
            Instance instance, int count, AtomicInteger accepted, java.util.concurrent.atomic.AtomicBoolean stop)
            throws InterruptedException {
        AtomicInteger next = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            Thread thread = new Thread(() -> {
                while (!stop.get() && next.getAndIncrement() < count) {
                    HttpRequest request = HttpRequest.newBuilder(
                                    URI.create("http://127.0.0.1:" + instance.port + "/orders"))
                            .header("content-type", "application/json")
                            .timeout(Duration.ofSeconds(10))
                            .POST(HttpRequest.BodyPublishers.ofString(
                                    "{\"customer\":\"ada\",\"sku\":\"book\",\"quantity\":1}"))
                            .build();
                    try {
                        if (http.send(request, HttpResponse.BodyHandlers.discarding())
                                        .statusCode()
                                == 201) {
                            accepted.incrementAndGet();
                        }
                    } catch (IOException e) {
                        // the instance is gone: the order may have committed; the database tells
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
            });
            thread.start();
            threads.add(thread);
        }
        for (Thread thread : threads) {
            thread.join();
        }
    }

    private static long count(String jdbcUrl, String sql) throws SQLException {
        try (Connection connection = DriverManager.getConnection(jdbcUrl, "postgres", "postgres");
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(sql)) {
            rows.next();
            return rows.getLong(1);
        }
    }

    private static Set<String> orderIds(String jdbcUrl) throws SQLException {
        Set<String> ids = new HashSet<>();
        try (Connection connection = DriverManager.getConnection(jdbcUrl, "postgres", "postgres");
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT id FROM orders")) {
            while (rows.next()) {
                ids.add(rows.getString(1));
            }
        }
        return ids;
    }

    /** Reads the topic from the start until every expected order id (the record key) arrived, or the timeout. */
    private static Map<String, Integer> consume(String bootstrap, Set<String> expected, Duration timeout) {
        Map<String, Integer> seen = new java.util.HashMap<>();
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName(),
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName()))) {
            List<TopicPartition> partitions = consumer.partitionsFor(OrderService.TOPIC).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition()))
                    .toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + timeout.toNanos();
            while (System.nanoTime() < deadline && !seen.keySet().containsAll(expected)) {
                for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                    seen.merge(record.key(), 1, Integer::sum);
                }
            }
        }
        return seen;
    }
}
