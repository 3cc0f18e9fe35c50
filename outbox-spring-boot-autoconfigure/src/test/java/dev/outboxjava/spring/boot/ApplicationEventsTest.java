package dev.outboxjava.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.OutboxException;
import dev.outboxjava.core.PayloadSerializer;
import dev.outboxjava.core.SerializedPayload;
import dev.outboxjava.core.port.DeadLetterFilter;
import dev.outboxjava.core.port.DeadLetterMark;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.testkit.postgres.PostgresFixture;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;
import org.springframework.transaction.support.TransactionTemplate;

/** The application's own events, published with its ApplicationEventPublisher, in the outbox; on the real database. */
@DisplayName("The application's events")
class ApplicationEventsTest {

    private static final PostgresFixture postgres = PostgresFixture.shared();

    private final String schema = postgres.newSchema();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    DataSourceAutoConfiguration.class,
                    DataSourceTransactionManagerAutoConfiguration.class,
                    TransactionAutoConfiguration.class,
                    JacksonAutoConfiguration.class,
                    OutboxAutoConfiguration.class))
            .withUserConfiguration(Listening.class)
            .withPropertyValues(
                    "spring.application.name=shop",
                    "spring.datasource.url=" + postgres.jdbcUrl(),
                    "spring.datasource.username=" + postgres.user(),
                    "spring.datasource.password=" + postgres.password(),
                    "outbox.table=" + schema + ".outbox_events",
                    "outbox.schema.initialize=true",
                    "outbox.relay.enabled=false");

    @AfterEach
    void dropSchema() {
        postgres.dropSchema(schema);
    }

    @OutboxRoute(destination = "orders", key = "orderId")
    public record OrderPlaced(UUID orderId, String sku, int quantity) {}

    @OutboxRoute(destination = "payments", key = "payment.id", type = "shop.payment.taken", source = "/billing")
    public record PaymentTaken(Payment payment) {}

    public record Payment(String id, long cents) {}

    /** No route: Spring's listeners only. */
    public record OrderViewed(UUID orderId) {}

    /** Routed by outbox.routes or an EventRoute bean only. */
    public record OrderShipped(UUID orderId, String carrier) {}

    @Configuration(proxyBeanMethods = false)
    static class Listening {
        final List<Object> heard = new ArrayList<>();

        @EventListener
        void on(Object event) {
            if (event instanceof OrderPlaced || event instanceof OrderViewed) {
                heard.add(event);
            }
        }
    }

    @Test
    @DisplayName("an annotated event published in a transaction is in the outbox at commit: its record as JSON by "
            + "the application's JsonMapper, the key, the class as type and the application as source")
    void publishedInATransaction() {
        runner.run(context -> {
            OrderPlaced placed = new OrderPlaced(UUID.randomUUID(), "book", 2);

            inTransaction(context, () -> context.publishEvent(placed));

            OutboxEvent event = single(context);
            assertThat(json(event))
                    .isEqualTo("{\"orderId\":\"" + placed.orderId() + "\",\"sku\":\"book\",\"quantity\":2}");
            assertThat(event.contentType()).isEqualTo("application/json");
            assertThat(event.destination()).isEqualTo("orders");
            assertThat(event.key()).contains(placed.orderId().toString());
            assertThat(event.type()).isEqualTo(OrderPlaced.class.getName());
            assertThat(event.source()).isEqualTo("/shop");
            assertThat(context.getBean(Listening.class).heard)
                    .as("Spring's listeners still get it")
                    .containsExactly(placed);
        });
    }

    @Test
    @DisplayName("the annotation's key expression reads nested properties; its type and source are the event's")
    void annotationAttributes() {
        runner.run(context -> {
            inTransaction(context, () -> context.publishEvent(new PaymentTaken(new Payment("p-7", 1250))));

            OutboxEvent event = single(context);
            assertThat(event.key()).contains("p-7");
            assertThat(event.type()).isEqualTo("shop.payment.taken");
            assertThat(event.source()).isEqualTo("/billing");
            assertThat(json(event)).isEqualTo("{\"payment\":{\"id\":\"p-7\",\"cents\":1250}}");
        });
    }

    @Test
    @DisplayName("a rollback takes the published event with it")
    void rolledBack() {
        runner.run(context -> {
            assertThatThrownBy(() -> inTransaction(context, () -> {
                        context.publishEvent(new OrderPlaced(UUID.randomUUID(), "book", 1));
                        throw new IllegalStateException("refused");
                    }))
                    .hasMessage("refused");

            assertThat(pending(context)).isEmpty();
        });
    }

    @Test
    @DisplayName("published outside a transaction, a routed event fails with the appender's error, and nothing is "
            + "appended")
    void outsideATransaction() {
        runner.run(context -> {
            assertThatThrownBy(() -> context.publishEvent(new OrderPlaced(UUID.randomUUID(), "book", 1)))
                    .isInstanceOf(OutboxException.class)
                    .hasMessageContaining("no Spring transaction is active");
            assertThat(pending(context)).isEmpty();
        });
    }

    @Test
    @DisplayName("an event without a route goes to Spring's listeners only, even outside a transaction")
    void unrouted() {
        runner.run(context -> {
            OrderViewed viewed = new OrderViewed(UUID.randomUUID());

            context.publishEvent(viewed);
            inTransaction(context, () -> context.publishEvent(viewed));

            assertThat(context.getBean(Listening.class).heard).containsExactly(viewed, viewed);
            assertThat(pending(context)).isEmpty();
        });
    }

    @Test
    @DisplayName("a route in outbox.routes sends an unannotated type, with a key expression on the event")
    void configuredRoute() {
        runner.withPropertyValues(
                        "outbox.routes[" + OrderShipped.class.getName() + "].destination=shipments",
                        "outbox.routes[" + OrderShipped.class.getName() + "].key=carrier + '/' + orderId",
                        "outbox.routes[" + OrderShipped.class.getName() + "].type=shop.order.shipped")
                .run(context -> {
                    UUID orderId = UUID.randomUUID();
                    inTransaction(context, () -> context.publishEvent(new OrderShipped(orderId, "ups")));

                    OutboxEvent event = single(context);
                    assertThat(event.destination()).isEqualTo("shipments");
                    assertThat(event.key()).contains("ups/" + orderId);
                    assertThat(event.type()).isEqualTo("shop.order.shipped");
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class Routes {
        // tag::event-route[]
        @Bean
        EventRoute<OrderPlaced> orderPlacedRoute() {
            return EventRoute.of(OrderPlaced.class)
                    .destination("orders-v2")
                    .key(OrderPlaced::sku)
                    .build();
        }
        // end::event-route[]
    }

    @Test
    @DisplayName("an EventRoute bean with a method reference as key wins over the type's annotation")
    void routeBean() {
        runner.withUserConfiguration(Routes.class).run(context -> {
            inTransaction(context, () -> context.publishEvent(new OrderPlaced(UUID.randomUUID(), "book", 1)));

            OutboxEvent event = single(context);
            assertThat(event.destination()).isEqualTo("orders-v2");
            assertThat(event.key()).contains("book");
        });
    }

    @Test
    @DisplayName("a route to an unknown class is a start failure naming the property")
    void unknownClass() {
        runner.withPropertyValues("outbox.routes[com.example.Missing].destination=x")
                .run(context -> assertThat(context)
                        .hasFailed()
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("outbox.routes[com.example.Missing]")
                        .hasMessageContaining("no class com.example.Missing"));
    }

    @Test
    @DisplayName("SpringOutbox.append(object) appends a routed object and refuses an unrouted one, saying how to "
            + "route it")
    void appendObject() {
        runner.run(context -> {
            SpringOutbox outbox = context.getBean(SpringOutbox.class);
            OutboxEvent appended =
                    inTransaction(context, () -> outbox.append(new OrderPlaced(UUID.randomUUID(), "pen", 3)));
            assertThat(single(context).id()).isEqualTo(appended.id());

            assertThatThrownBy(() -> inTransaction(context, () -> outbox.append(new OrderViewed(UUID.randomUUID()))))
                    .isInstanceOf(OutboxException.class)
                    .hasMessageContaining("no outbox route for " + OrderViewed.class.getName())
                    .hasMessageContaining("@OutboxRoute")
                    .hasMessageContaining("outbox.routes[" + OrderViewed.class.getName() + "].destination")
                    .hasMessageContaining("EventRoute");
        });
    }

    @Test
    @DisplayName("the application's own PayloadSerializer wins over JSON, for published events and SpringOutbox.event")
    void ownSerializer() {
        runner.withBean(
                        PayloadSerializer.class,
                        () -> (destination, value) -> new SerializedPayload(
                                (destination + "|" + value).getBytes(StandardCharsets.UTF_8), "application/x-test"))
                .run(context -> {
                    OrderViewed viewed = new OrderViewed(UUID.randomUUID());
                    SpringOutbox outbox = context.getBean(SpringOutbox.class);
                    inTransaction(
                            context,
                            () -> outbox.append(outbox.event(viewed)
                                    .type("shop.order.viewed")
                                    .destination("views")
                                    .build()));

                    OutboxEvent event = single(context);
                    assertThat(event.contentType()).isEqualTo("application/x-test");
                    assertThat(json(event)).isEqualTo("views|" + viewed);
                });
    }

    @Test
    @DisplayName("the payload follows the application's spring.jackson settings")
    void applicationJsonSettings() {
        runner.withPropertyValues("spring.jackson.property-naming-strategy=SNAKE_CASE")
                .run(context -> {
                    UUID orderId = UUID.randomUUID();
                    inTransaction(context, () -> context.publishEvent(new OrderPlaced(orderId, "book", 1)));

                    assertThat(json(single(context))).contains("\"order_id\":\"" + orderId + "\"");
                });
    }

    /** An application's own job over the outbox's publications. */
    static class ResubmitJob {
        private final OutboxOperations operations;

        ResubmitJob(OutboxOperations operations) {
            this.operations = operations;
        }

        // tag::outbox-operations[]
        long resubmitFailedOrders() {
            DeadLetterFilter orders = DeadLetterFilter.any().withType(OrderPlaced.class.getName());
            if (operations.countFailed(orders) == 0) {
                return 0;
            }
            return operations.resubmit(orders, "resubmit-job"); // audited as done by resubmit-job
        }
        // end::outbox-operations[]
    }

    @Test
    @DisplayName("OutboxOperations, a bean for the application's jobs: counts incomplete and failed events, the "
            + "oldest, and resubmits failed ones under the job's name in the audit trail")
    void operations() {
        runner.run(context -> {
            inTransaction(context, () -> context.publishEvent(new OrderPlaced(UUID.randomUUID(), "book", 1)));
            OutboxOperations operations = context.getBean(OutboxOperations.class);
            assertThat(operations.oldestIncomplete()).isPresent();
            assertThat(operations.backlog().eligible()).isEqualTo(1);
            PostgresOutboxStore store = context.getBean(PostgresOutboxStore.class);
            UUID lease = UUID.randomUUID();
            OutboxEvent leased = store.lease(lease, 10, Instant.now()).get(0);
            store.markDeadLettered(lease, List.of(new DeadLetterMark(leased.id(), "broker said no")), Instant.now());
            assertThat(operations.countFailed(DeadLetterFilter.any())).isEqualTo(1);
            assertThat(operations.countByStatus()).containsEntry(EventStatus.FAILED, 1L);

            assertThat(new ResubmitJob(operations).resubmitFailedOrders()).isEqualTo(1);

            assertThat(operations.countFailed(DeadLetterFilter.any())).isZero();
            assertThat(operations.operator().auditTrail(java.util.OptionalLong.empty(), 10))
                    .anySatisfy(entry -> assertThat(entry.actor()).isEqualTo("resubmit-job"));
            assertThat(pending(context)).extracting(OutboxEvent::id).containsExactly(leased.id());
        });
    }

    private static <T> T inTransaction(ApplicationContext context, java.util.function.Supplier<T> work) {
        return context.getBean(TransactionTemplate.class).execute(status -> work.get());
    }

    private static void inTransaction(ApplicationContext context, Runnable work) {
        context.getBean(TransactionTemplate.class).executeWithoutResult(status -> work.run());
    }

    private static List<OutboxEvent> pending(ApplicationContext context) {
        return context.getBean(PostgresOutboxStore.class).lease(UUID.randomUUID(), 10, Instant.now());
    }

    private static OutboxEvent single(ApplicationContext context) {
        List<OutboxEvent> pending = pending(context);
        assertThat(pending).hasSize(1);
        return pending.get(0);
    }

    private static String json(OutboxEvent event) {
        return new String(event.payload(), StandardCharsets.UTF_8);
    }
}
