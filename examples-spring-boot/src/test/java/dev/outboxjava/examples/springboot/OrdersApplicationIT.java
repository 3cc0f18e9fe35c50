package dev.outboxjava.examples.springboot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.outboxjava.core.OutboxException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

@DisplayName("The orders service on its embedded defaults")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OrdersApplicationIT {

    private ConfigurableApplicationContext app;

    @BeforeAll
    void start() {
        app = EmbeddedServices.start("--server.port=0");
    }

    @AfterAll
    void stop() {
        app.close();
    }

    @Test
    @DisplayName("POST /orders commits the order and its OrderPlaced event, which reaches Kafka as the record's JSON; "
            + "a refused order rolls its event back")
    void placeOrder() throws Exception {
        int port = ((WebServerApplicationContext) app).getWebServer().getPort();
        HttpClient http = HttpClient.newHttpClient();
        HttpResponse<String> placed = http.send(post(port, 1), HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> refused = http.send(post(port, 0), HttpResponse.BodyHandlers.ofString());

        assertThat(placed.statusCode()).isEqualTo(201);
        assertThat(refused.statusCode()).isEqualTo(400);
        String orderId = placed.body().replaceAll(".*\"orderId\":\"([^\"]+)\".*", "$1");
        JdbcTemplate jdbc = app.getBean(JdbcTemplate.class);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM outbox_events", Long.class))
                .as("the refused order's event rolled back with it")
                .isEqualTo(1);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM orders", Long.class))
                .isEqualTo(1);

        ConsumerRecord<String, byte[]> message = firstMessage();
        assertThat(message.key()).isEqualTo(orderId);
        assertThat(new String(message.value(), StandardCharsets.UTF_8))
                .isEqualTo("{\"orderId\":\"" + orderId + "\",\"customer\":\"ada\",\"sku\":\"book\",\"quantity\":1}");
        assertThat(header(message, "ce_type")).isEqualTo("shop.order.placed");
        assertThat(header(message, "ce_source")).isEqualTo("/orders");
        assertThat(header(message, "content-type")).isEqualTo("application/json");
    }

    @Test
    @DisplayName("an OrderPlaced published outside a transaction is refused with the error that says to publish it "
            + "in one")
    void outsideATransaction() {
        ApplicationEventPublisher events = app; // what OrderService is given

        assertThatThrownBy(() -> events.publishEvent(new OrderPlaced(UUID.randomUUID(), "ada", "book", 1)))
                .isInstanceOf(OutboxException.class)
                .hasMessageContaining("no Spring transaction is active")
                .hasMessageContaining("@Transactional");
    }

    /** The topic's first message: the service published exactly one event (the other rolled back). */
    private ConsumerRecord<String, byte[]> firstMessage() {
        String bootstrap = app.getEnvironment().getProperty("spring.kafka.bootstrap-servers");
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName(),
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName()))) {
            List<TopicPartition> partitions = consumer.partitionsFor(OrderService.TOPIC).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition()))
                    .toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            List<ConsumerRecord<String, byte[]>> received = new ArrayList<>();
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                consumer.poll(Duration.ofMillis(200)).forEach(received::add);
                return !received.isEmpty();
            });
            return received.get(0);
        }
    }

    private static String header(ConsumerRecord<String, byte[]> message, String name) {
        return new String(message.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
    }

    private static HttpRequest post(int port, int quantity) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/orders"))
                .header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(
                        "{\"customer\":\"ada\",\"sku\":\"book\",\"quantity\":" + quantity + "}"))
                .build();
    }
}
