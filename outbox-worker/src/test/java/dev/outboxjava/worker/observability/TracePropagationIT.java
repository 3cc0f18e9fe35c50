package dev.outboxjava.worker.observability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.inject.Guice;
import com.google.inject.Module;
import com.rabbitmq.client.Delivery;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.kafka.KafkaPublisherConfig;
import dev.outboxjava.postgres.OutboxWriter;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.postgres.WakeUpMode;
import dev.outboxjava.rabbitmq.RabbitMqPublisherConfig;
import dev.outboxjava.testkit.kafka.KafkaFixture;
import dev.outboxjava.testkit.postgres.PostgresFixture;
import dev.outboxjava.testkit.rabbitmq.RabbitMqDestination;
import dev.outboxjava.testkit.rabbitmq.RabbitMqFixture;
import dev.outboxjava.worker.KafkaPublisherModule;
import dev.outboxjava.worker.OutboxWorker;
import dev.outboxjava.worker.OutboxWorkerConfig;
import dev.outboxjava.worker.OutboxWorkerModule;
import dev.outboxjava.worker.PostgresStoreModule;
import dev.outboxjava.worker.RabbitMqPublisherModule;
import dev.outboxjava.worker.it.PlainDataSources;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * OpenTelemetry end to end with the SDK in memory: an event appended inside a span carries the span's
 * W3C {@code traceparent}; the worker publishes it (its publish span linked to the producer's span);
 * a consumer that extracts the context from the received message continues the producer's trace.
 */
@DisplayName("Trace propagation producer -> outbox -> broker -> consumer")
class TracePropagationIT {

    private static final TextMapGetter<Map<String, String>> MAP = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Map<String, String> carrier) {
            return carrier.keySet();
        }

        @Override
        public String get(Map<String, String> carrier, String key) {
            return carrier == null ? null : carrier.get(key);
        }
    };

    private final InMemorySpanExporter spans = InMemorySpanExporter.create();
    private OpenTelemetrySdk sdk;
    private Tracer tracer;
    private PostgresFixture postgres;
    private String schema;
    private String table;
    private PostgresOutboxStore store;

    @BeforeEach
    void setUp() {
        sdk = OpenTelemetrySdk.builder()
                .setTracerProvider(SdkTracerProvider.builder()
                        .addSpanProcessor(SimpleSpanProcessor.create(spans))
                        .build())
                .build();
        GlobalOpenTelemetry.resetForTest();
        GlobalOpenTelemetry.set(sdk);
        tracer = sdk.getTracer("trace-propagation-it");
        postgres = PostgresFixture.shared();
        schema = postgres.newSchema();
        table = schema + ".outbox_events";
        store = PostgresOutboxStore.create(
                postgres.dataSource(),
                PostgresOutboxConfig.builder().tableName(table).build());
        store.ensureSchema();
    }

    @AfterEach
    void tearDown() {
        GlobalOpenTelemetry.resetForTest();
        sdk.close();
        postgres.dropSchema(schema);
    }

    /** Appends one event inside a producer span (and one outside any span); returns the producer span's context. */
    private SpanContext appendInSpan(String destination, UUID[] ids) throws Exception {
        OutboxWriter writer = store.writer();
        Span producer =
                tracer.spanBuilder("place order").setSpanKind(SpanKind.SERVER).startSpan();
        try (Scope ignored = producer.makeCurrent();
                Connection connection = postgres.dataSource().getConnection()) {
            connection.setAutoCommit(false);
            OutboxEvent appended = writer.append(connection, List.of(event(destination, "traced")))
                    .get(0);
            connection.commit();
            ids[0] = appended.id();
            assertThat(appended.headers()).containsKey("traceparent");
        } finally {
            producer.end();
        }
        try (Connection connection = postgres.dataSource().getConnection()) {
            connection.setAutoCommit(false);
            OutboxEvent untraced = writer.append(connection, List.of(event(destination, "untraced")))
                    .get(0);
            connection.commit();
            ids[1] = untraced.id();
            assertThat(untraced.headers())
                    .as("no span current, no trace headers")
                    .doesNotContainKey("traceparent");
        }
        assertThat(store.find(ids[0]).orElseThrow().headers().get("traceparent"))
                .as("stored with the event")
                .startsWith("00-" + producer.getSpanContext().getTraceId() + "-"
                        + producer.getSpanContext().getSpanId() + "-");
        return producer.getSpanContext();
    }

    private static OutboxEvent event(String destination, String key) {
        return OutboxEvent.builder()
                .type("order.placed")
                .destination(destination)
                .key(key)
                .routingKey("orders.placed")
                .payload("{}".getBytes(StandardCharsets.UTF_8))
                .build();
    }

    private OutboxWorker worker(Module publisherModule) {
        DataSource database = PlainDataSources.simple(postgres.jdbcUrl(), postgres.user(), postgres.password());
        return Guice.createInjector(
                        new OutboxWorkerModule(OutboxWorkerConfig.builder()
                                .pollInterval(Duration.ofMillis(200))
                                .build()),
                        new PostgresStoreModule(database, PlainDataSources.keepSent(table, WakeUpMode.NONE)),
                        publisherModule)
                .getInstance(OutboxWorker.class);
    }

    /** What a consumer does: extract the context from the message headers and start its span in it. */
    private SpanData consume(Map<String, String> headers) {
        Context extracted = W3CTraceContextPropagator.getInstance().extract(Context.root(), headers, MAP);
        tracer.spanBuilder("handle order")
                .setParent(extracted)
                .setSpanKind(SpanKind.CONSUMER)
                .startSpan()
                .end();
        return spans.getFinishedSpanItems().stream()
                .filter(span -> span.getName().equals("handle order"))
                .reduce((first, second) -> second)
                .orElseThrow();
    }

    private void assertTraceContinued(SpanContext producer, SpanData consumer, String destination, UUID tracedId) {
        assertThat(consumer.getTraceId())
                .as("the consumer continues the producer's trace")
                .isEqualTo(producer.getTraceId());
        assertThat(consumer.getParentSpanId()).isEqualTo(producer.getSpanId());
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            SpanData publish = spans.getFinishedSpanItems().stream()
                    .filter(span -> span.getName().equals("outbox publish " + destination))
                    .findFirst()
                    .orElseThrow();
            assertThat(publish.getKind()).isEqualTo(SpanKind.PRODUCER);
            assertThat(publish.getLinks()).extracting(LinkData::getSpanContext).anySatisfy(link -> {
                assertThat(link.getTraceId()).isEqualTo(producer.getTraceId());
                assertThat(link.getSpanId()).isEqualTo(producer.getSpanId());
            });
            assertThat(publish.getLinks()).hasSize(1); // the untraced event adds no link
        });
    }

    @Test
    @DisplayName("through Kafka: the consumer's span has the producer's trace id and parent")
    void throughKafka() throws Exception {
        try (KafkaFixture kafka = KafkaFixture.start()) {
            String topic = kafka.createTopic("trace-it", 1);
            UUID[] ids = new UUID[2];
            SpanContext producer = appendInSpan(topic, ids);
            try (OutboxWorker worker = worker(new KafkaPublisherModule(KafkaPublisherConfig.builder()
                    .bootstrapServers(kafka.bootstrapServers())
                    .build()))) {
                worker.start();
                List<ConsumerRecord<String, byte[]>> records = kafka.consume(topic, 2, Duration.ofSeconds(60));
                ConsumerRecord<String, byte[]> traced = records.stream()
                        .filter(r -> "traced".equals(r.key()))
                        .findFirst()
                        .orElseThrow();
                ConsumerRecord<String, byte[]> untraced = records.stream()
                        .filter(r -> "untraced".equals(r.key()))
                        .findFirst()
                        .orElseThrow();
                assertThat(untraced.headers().lastHeader("traceparent")).isNull();
                Map<String, String> headers = new HashMap<>();
                for (Header header : traced.headers()) {
                    headers.put(header.key(), new String(header.value(), StandardCharsets.UTF_8));
                }
                assertTraceContinued(producer, consume(headers), topic, ids[0]);
            } finally {
                kafka.deleteTopic(topic);
            }
        }
    }

    @Test
    @DisplayName("through RabbitMQ: the consumer's span has the producer's trace id and parent")
    void throughRabbitMq() throws Exception {
        try (RabbitMqFixture rabbit = RabbitMqFixture.start()) {
            RabbitMqDestination destination = rabbit.createDestination("trace-it");
            UUID[] ids = new UUID[2];
            SpanContext producer = appendInSpan(destination.exchange(), ids);
            try (OutboxWorker worker = worker(new RabbitMqPublisherModule(RabbitMqPublisherConfig.builder()
                    .uri(rabbit.uri())
                    .connectionName(
                            "outbox-trace-it-" + UUID.randomUUID().toString().substring(0, 8))
                    .build()))) {
                worker.start();
                List<Delivery> deliveries = rabbit.receive(destination, 2, Duration.ofSeconds(60));
                Delivery traced = deliveries.stream()
                        .filter(d -> ids[0].toString().equals(d.getProperties().getMessageId()))
                        .findFirst()
                        .orElseThrow();
                Delivery untraced = deliveries.stream()
                        .filter(d -> ids[1].toString().equals(d.getProperties().getMessageId()))
                        .findFirst()
                        .orElseThrow();
                assertThat(Optional.ofNullable(untraced.getProperties().getHeaders())
                                .orElse(Map.of()))
                        .doesNotContainKey("traceparent");
                Map<String, String> headers = new HashMap<>();
                traced.getProperties().getHeaders().forEach((name, value) -> headers.put(name, String.valueOf(value)));
                assertTraceContinued(producer, consume(headers), destination.exchange(), ids[0]);
            } finally {
                rabbit.delete(destination);
            }
        }
    }
}
