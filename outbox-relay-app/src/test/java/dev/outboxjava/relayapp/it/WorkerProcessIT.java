package dev.outboxjava.relayapp.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.testkit.contract.ReceivedMessage;
import dev.outboxjava.testkit.fixture.ChildJvm;
import dev.outboxjava.worker.testsupport.TcpProxy;
import dev.outboxjava.worker.testsupport.WorkerFixture;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The standalone jar as a separate OS process against the real PostgreSQL and RabbitMQ: drain,
 * SIGTERM, SIGKILL and a broker outage. Each test has its own table (schema) and exchange/queue;
 * the outage cuts only this worker's connections, through a proxy, never the shared broker.
 */
@DisplayName("The standalone worker process")
class WorkerProcessIT {

    private static final Logger log = LoggerFactory.getLogger(WorkerProcessIT.class);
    private static final Duration SHUTDOWN_BOUND = Duration.ofSeconds(5);
    /** JVM start-up/tear-down on top of the shutdown bound, on a busy 2-core machine. */
    private static final Duration PROCESS_SLACK = Duration.ofSeconds(5);

    private static final Duration DRAIN_TIMEOUT = Duration.ofMinutes(3);

    @RegisterExtension
    static final WorkerFixture fixture = new WorkerFixture("worker-it");

    private Map<String, String> environment(String amqpUri, int httpPort) {
        Map<String, String> env =
                WorkerJar.rabbitMqEnvironment(fixture, fixture.postgres().jdbcUrl(), amqpUri, httpPort);
        env.put(
                "OUTBOX_RABBITMQ_CONNECTION_NAME",
                "outbox-worker-it-" + UUID.randomUUID().toString().substring(0, 8));
        env.put("OUTBOX_RELAY_PUBLISH_TIMEOUT", "5s");
        env.put("OUTBOX_SWEEPER_LEASE_TIMEOUT", "10s");
        env.put("OUTBOX_SWEEPER_INTERVAL", "1s");
        env.put("OUTBOX_BACKOFF_MAX", "2s");
        env.put("OUTBOX_METRICS_POLL_INTERVAL", "1s");
        return env;
    }

    private static HttpResponse<String> get(int port, String path) throws Exception {
        return HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                                .timeout(Duration.ofSeconds(10))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
    }

    private void awaitDelivered(List<UUID> ids, ChildJvm worker) {
        await().atMost(DRAIN_TIMEOUT).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
            assertThat(worker.isAlive())
                    .as("worker alive; log:\n%s", worker.output())
                    .isTrue();
            assertThat(fixture.inbox().ids())
                    .containsAll(ids.stream().map(UUID::toString).collect(Collectors.toSet()));
        });
    }

    @Test
    @DisplayName("drains 5,000 events to RabbitMQ, then on SIGTERM exits within the bound with nothing in flight")
    void drainsThenStopsOnSigterm() throws Exception {
        List<UUID> first = fixture.table().append(5000, fixture.destination().exchange(), "order.placed");
        int httpPort = WorkerJar.freePort();
        try (ChildJvm worker =
                WorkerJar.start("drain", environment(fixture.rabbit().uri(), httpPort), "run")) {
            long started = System.nanoTime();
            awaitDelivered(first, worker);
            log.info(
                    "5,000 events appended before start reached RabbitMQ {} ms after the process was started",
                    (System.nanoTime() - started) / 1_000_000);
            await().atMost(Duration.ofSeconds(30)).until(() -> fixture.table().count(EventStatus.SENT) == 5000);

            assertThat(get(httpPort, "/health").statusCode()).isEqualTo(200);
            HttpResponse<String> ready = get(httpPort, "/health/ready");
            assertThat(ready.statusCode()).as(ready.body()).isEqualTo(200);
            await().atMost(Duration.ofSeconds(30))
                    .untilAsserted(() -> assertThat(get(httpPort, "/metrics").body())
                            .contains("outbox_events_published_total{table=\"" + fixture.table().name + "\"} 5000.0")
                            .contains("outbox_events_pending{table=\"" + fixture.table().name + "\"} 0.0")
                            .contains("outbox_relay_batch_duration_seconds_count")
                            .contains("outbox_events_commit_to_ack_seconds_count"));
            // the table tag is a filter configured before the first meter, so Micrometer has nothing to warn about
            assertThat(worker.output()).doesNotContain("MeterFilter");

            // SIGTERM in the middle of a second, bigger drain
            fixture.table().append(20_000, fixture.destination().exchange(), "order.placed");
            await().atMost(DRAIN_TIMEOUT).until(() -> fixture.inbox().ids().size() >= 6000);
            long sigterm = System.nanoTime();
            worker.terminate();
            worker.waitFor(SHUTDOWN_BOUND.plus(PROCESS_SLACK));
            long exitMillis = (System.nanoTime() - sigterm) / 1_000_000;
            log.info(
                    "SIGTERM to exit: {} ms (bound {} + process slack {}); delivered {} of 25,000 by then",
                    exitMillis,
                    SHUTDOWN_BOUND,
                    PROCESS_SLACK,
                    fixture.inbox().ids().size());

            assertThat(fixture.table().count(EventStatus.IN_FLIGHT))
                    .as("nothing left in flight")
                    .isZero();
            assertThat(worker.output()).contains("outbox worker stopping").contains("outbox worker stopped in");
            Map<EventStatus, Long> counts = fixture.table().countsBySql();
            assertThat(counts.get(EventStatus.SENT) + counts.get(EventStatus.PENDING))
                    .isEqualTo(25_000);
        }
    }

    @Test
    @DisplayName("after SIGKILL mid-drain, a new process delivers every event (duplicates allowed)")
    void survivesSigkillMidDrain() throws Exception {
        List<UUID> ids = fixture.table().append(5000, fixture.destination().exchange(), "order.placed");
        Map<String, String> env = environment(fixture.rabbit().uri(), 0);
        env.put("OUTBOX_RELAY_BATCH_SIZE", "50");

        try (ChildJvm first = WorkerJar.start("sigkill-first", env, "run")) {
            await().atMost(DRAIN_TIMEOUT).until(() -> fixture.inbox().ids().size() >= 500);
            first.kill();
            first.waitFor(Duration.ofSeconds(10));
        }
        Map<EventStatus, Long> afterKill = fixture.table().countsBySql();
        log.info("after SIGKILL: {} delivered, table {}", fixture.inbox().ids().size(), afterKill);
        assertThat(afterKill.get(EventStatus.SENT)).as("killed mid-drain").isLessThan(5000);

        try (ChildJvm second = WorkerJar.start("sigkill-second", env, "run")) {
            awaitDelivered(ids, second);
            await().atMost(Duration.ofSeconds(60)).until(() -> fixture.table().count(EventStatus.SENT) == 5000);
            log.info(
                    "every event arrived: {} deliveries for 5,000 events ({} duplicates)",
                    fixture.inbox().get().size(),
                    fixture.inbox().get().size() - 5000);
            second.terminate();
            second.waitFor(SHUTDOWN_BOUND.plus(PROCESS_SLACK));
        }
        assertThat(fixture.table().count(EventStatus.IN_FLIGHT)).isZero();
    }

    @Test
    @DisplayName("a 10 s broker outage mid-drain: backs off, logs it once, drains everything after recovery")
    void ridesOutABrokerOutage() throws Exception {
        List<UUID> ids = fixture.table().append(5000, fixture.destination().exchange(), "order.placed");
        try (TcpProxy proxy =
                new TcpProxy(fixture.rabbit().host(), fixture.rabbit().port())) {
            Map<String, String> env = environment(fixture.rabbitUriVia(proxy.port()), 0);
            env.put("OUTBOX_RELAY_BATCH_SIZE", "50");
            try (ChildJvm worker = WorkerJar.start("broker-outage", env, "run")) {
                await().atMost(DRAIN_TIMEOUT).until(() -> fixture.inbox().ids().size() >= 500);

                proxy.cut();
                long cutAt = System.nanoTime();
                // What the broker accepted before the cut still reaches the test's consumer, which may lag
                // on a busy machine: count from the moment the consumer has caught up.
                int deliveredAtCut = settledCount();
                Thread.sleep(Math.max(0, 10_000 - (System.nanoTime() - cutAt) / 1_000_000)); // the outage: 10 s
                assertThat(worker.isAlive()).isTrue();
                assertThat(fixture.inbox().ids().size())
                        .as("nothing gets through while cut")
                        .isLessThanOrEqualTo(deliveredAtCut + 50);
                proxy.restore();

                awaitDelivered(ids, worker);
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> fixture.table().count(EventStatus.SENT) == 5000);
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> worker.linesContaining("broker available again") >= 1);

                log.info(
                        "outage log lines:\n{}",
                        worker.output()
                                .lines()
                                .filter(line -> line.contains("worker.outage"))
                                .collect(Collectors.joining("\n")));
                assertThat(worker.linesContaining("broker unavailable, backing off"))
                        .isEqualTo(1);
                assertThat(worker.linesContaining("broker available again")).isEqualTo(1);
                assertThat(fixture.table().count(EventStatus.FAILED))
                        .as("no event dead-lettered by the outage")
                        .isZero();
                worker.terminate();
                worker.waitFor(SHUTDOWN_BOUND.plus(PROCESS_SLACK));
            }
        }
    }

    @Test
    @DisplayName("a 10 s database outage mid-drain: backs off, logs it once, drains everything after recovery")
    void ridesOutADatabaseOutage() throws Exception {
        List<UUID> ids = fixture.table().append(5000, fixture.destination().exchange(), "order.placed");
        URI database = URI.create(fixture.postgres().jdbcUrl().substring("jdbc:".length()));
        try (TcpProxy proxy = new TcpProxy(database.getHost(), database.getPort() == -1 ? 5432 : database.getPort())) {
            Map<String, String> env = environment(fixture.rabbit().uri(), 0);
            env.put("OUTBOX_DB_URL", "jdbc:postgresql://127.0.0.1:" + proxy.port() + database.getPath());
            env.put("OUTBOX_RELAY_BATCH_SIZE", "50");
            try (ChildJvm worker = WorkerJar.start("database-outage", env, "run")) {
                await().atMost(DRAIN_TIMEOUT).until(() -> fixture.inbox().ids().size() >= 500 || !worker.isAlive());
                assertThat(worker.isAlive()).as(worker.output()).isTrue();

                proxy.cut();
                Thread.sleep(10_000); // the outage: 10 s without the database, for this worker only
                assertThat(worker.isAlive()).isTrue();
                proxy.restore();

                awaitDelivered(ids, worker);
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> fixture.table().count(EventStatus.SENT) == 5000);
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> worker.linesContaining("database available again") >= 1);
                log.info(
                        "outage log lines:\n{}",
                        worker.output()
                                .lines()
                                .filter(line -> line.contains("worker.outage"))
                                .collect(Collectors.joining("\n")));

                assertThat(worker.linesContaining("database unavailable, backing off"))
                        .isEqualTo(1);
                assertThat(worker.linesContaining("database available again")).isEqualTo(1);
                assertThat(fixture.table().count(EventStatus.FAILED)).isZero();
                worker.terminate();
                worker.waitFor(SHUTDOWN_BOUND.plus(PROCESS_SLACK));
            }
        }
        assertThat(fixture.table().count(EventStatus.IN_FLIGHT)).isZero();
    }

    @Test
    @DisplayName("with OUTBOX_ORDERING=per_key and two relay threads, every key's events arrive in append order")
    void keepsPerKeyOrder() throws Exception {
        List<UUID> ids = fixture.table().append(3000, fixture.destination().exchange(), "order.placed");
        Map<String, String> env = environment(fixture.rabbit().uri(), 0);
        env.put("OUTBOX_ORDERING", "per_key");
        env.put("OUTBOX_RELAY_THREADS", "2");
        env.put("OUTBOX_RELAY_BATCH_SIZE", "100");
        try (ChildJvm worker = WorkerJar.start("per-key", env, "run")) {
            awaitDelivered(ids, worker);
            assertThat(worker.output()).contains("ordering per key");
            worker.terminate();
            worker.waitFor(SHUTDOWN_BOUND.plus(PROCESS_SLACK));
        }
        // payload {"order":i} with key order-(i % 50): within a key, first arrivals must ascend
        Map<Integer, Integer> lastByKey = new HashMap<>();
        java.util.Set<Integer> seen = new java.util.HashSet<>();
        for (ReceivedMessage message : fixture.inbox().get()) {
            String body = new String(message.payload(), StandardCharsets.UTF_8);
            int order = Integer.parseInt(body.replaceAll("\\D", ""));
            if (!seen.add(order)) {
                continue;
            }
            int key = order % 50;
            assertThat(order).as("key order-%d", key).isGreaterThan(lastByKey.getOrDefault(key, -1));
            lastByKey.put(key, order);
        }
        assertThat(seen).hasSize(3000);
    }

    /** The consumer's count once it has stopped growing for a second (at most 8 s), i.e. it has caught up. */
    private int settledCount() throws InterruptedException {
        int previous = -1;
        int current = fixture.inbox().ids().size();
        long deadline = System.nanoTime() + Duration.ofSeconds(8).toNanos();
        while (current != previous && System.nanoTime() < deadline) {
            previous = current;
            Thread.sleep(1_000);
            current = fixture.inbox().ids().size();
        }
        return current;
    }
}
