package dev.outboxjava.worker.it;

import static org.awaitility.Awaitility.await;

import com.google.inject.AbstractModule;
import com.google.inject.Guice;
import com.google.inject.Module;
import com.google.inject.multibindings.OptionalBinder;
import dev.outboxjava.core.EventStatus;
import dev.outboxjava.kafka.KafkaPublisherConfig;
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
import dev.outboxjava.worker.testsupport.OutboxTable;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * Run by {@link OneBrokerClassPathIT} inside a class loader that has only one broker's client: an
 * embedded worker, wired as a service wires it (its own plain data source and meter registry, the one
 * publisher module it needs), relays events to that broker. The broker comes from the system property
 * {@code outbox.it.broker} ({@code kafka} or {@code rabbitmq}).
 */
public final class OneBrokerScenario implements Callable<List<String>> {

    private static final int EVENTS = 20;

    @Override
    public List<String> call() throws Exception {
        String broker = System.getProperty("outbox.it.broker");
        List<String> report = new ArrayList<>();
        report.add("amqp-client visible: " + visible("com.rabbitmq.client.ConnectionFactory"));
        report.add("kafka-clients visible: " + visible("org.apache.kafka.clients.producer.KafkaProducer"));
        PostgresFixture postgres = PostgresFixture.shared();
        try (OutboxTable table = new OutboxTable(postgres)) {
            if (broker.equals("kafka")) {
                try (KafkaFixture kafka = KafkaFixture.start()) {
                    String topic = kafka.createTopic("one-broker", 1);
                    relay(
                            report,
                            postgres,
                            table,
                            topic,
                            () -> new KafkaPublisherModule(KafkaPublisherConfig.builder()
                                    .bootstrapServers(kafka.bootstrapServers())
                                    .build()));
                    report.add("received: "
                            + kafka.consume(topic, EVENTS, Duration.ofMinutes(1))
                                    .size());
                }
            } else {
                try (RabbitMqFixture rabbit = RabbitMqFixture.start()) {
                    RabbitMqDestination destination = rabbit.createDestination("one-broker");
                    try {
                        relay(
                                report,
                                postgres,
                                table,
                                destination.exchange(),
                                () -> new RabbitMqPublisherModule(RabbitMqPublisherConfig.builder()
                                        .uri(rabbit.uri())
                                        .connectionName("one-broker-it-"
                                                + UUID.randomUUID().toString().substring(0, 8))
                                        .build()));
                        report.add("received: "
                                + rabbit.receive(destination.queue(), EVENTS, Duration.ofMinutes(1))
                                        .size());
                    } finally {
                        rabbit.delete(destination);
                    }
                }
            }
        }
        return report;
    }

    private static void relay(
            List<String> report,
            PostgresFixture postgres,
            OutboxTable table,
            String destination,
            Supplier<Module> publisher)
            throws Exception {
        DataSource dataSource = PlainDataSources.simple(postgres.jdbcUrl(), postgres.user(), postgres.password());
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (OutboxWorker worker = Guice.createInjector(
                        new OutboxWorkerModule(OutboxWorkerConfig.builder()
                                .pollInterval(Duration.ofMillis(200))
                                .build()),
                        new PostgresStoreModule(
                                dataSource, PlainDataSources.keepSent(table.name, WakeUpMode.NOTIFY_AFTER_COMMIT)),
                        publisher.get(),
                        new AbstractModule() {
                            @Override
                            protected void configure() {
                                OptionalBinder.newOptionalBinder(binder(), MeterRegistry.class)
                                        .setBinding()
                                        .toInstance(registry);
                            }
                        })
                .getInstance(OutboxWorker.class)) {
            worker.start();
            table.append(EVENTS, destination, "order.placed");
            await().atMost(Duration.ofMinutes(1)).until(() -> table.count(EventStatus.SENT) == EVENTS);
            // the relay counts a batch once its mark has returned, a moment after the rows say SENT
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (registry.counter("outbox.events.published").count() < EVENTS && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            report.add("worker's registry is the service's: " + (worker.meterRegistry() == registry));
            report.add("published, counted in the service's registry: "
                    + (long) registry.counter("outbox.events.published").count());
        }
    }

    private static boolean visible(String className) {
        try {
            Class.forName(className, false, OneBrokerScenario.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }
}
