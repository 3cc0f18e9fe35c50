package dev.outboxjava.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxjava.core.OutboxException;
import dev.outboxjava.testkit.postgres.PostgresFixture;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;

/** The inbox of Spring listeners: once per message id, in the listener's transaction; on the real database. */
@DisplayName("The Spring inbox")
class SpringInboxTest {

    private static final PostgresFixture postgres = PostgresFixture.shared();

    private final String schema = postgres.newSchema();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    DataSourceAutoConfiguration.class,
                    DataSourceTransactionManagerAutoConfiguration.class,
                    JdbcTemplateAutoConfiguration.class,
                    TransactionAutoConfiguration.class,
                    OutboxAutoConfiguration.class))
            .withPropertyValues(
                    "spring.datasource.url=" + postgres.jdbcUrl()
                            + (postgres.jdbcUrl().contains("?") ? "&" : "?") + "currentSchema=" + schema,
                    "spring.datasource.username=" + postgres.user(),
                    "spring.datasource.password=" + postgres.password(),
                    "outbox.table=" + schema + ".outbox_events",
                    "outbox.inbox.enabled=true",
                    "outbox.inbox.table=" + schema + ".outbox_inbox",
                    "outbox.schema.initialize=true",
                    "outbox.relay.enabled=false");

    @AfterEach
    void dropSchema() {
        postgres.dropSchema(schema);
    }

    /** What an application's listener looks like (not started here: the test calls it as Kafka would). */
    static class BillingListener {
        private final SpringInbox inbox;
        private final JdbcTemplate jdbc;

        BillingListener(SpringInbox inbox, JdbcTemplate jdbc) {
            this.inbox = inbox;
            this.jdbc = jdbc;
        }

        // tag::spring-inbox[]
        @KafkaListener(topics = "orders", groupId = "billing")
        @Transactional
        public void on(ConsumerRecord<String, byte[]> record) {
            String eventId = new String(record.headers().lastHeader("ce_id").value(), StandardCharsets.UTF_8);
            inbox.once(
                    "billing", eventId, () -> jdbc.update("INSERT INTO invoices (order_id) VALUES (?)", record.key()));
        }
        // end::spring-inbox[]
    }

    @Test
    @DisplayName("runs the work once per message id: a redelivery after the commit is skipped, and the record "
            + "committed with the listener's writes")
    void oncePerId() {
        runner.run(context -> {
            createInvoices(context);
            BillingListener listener = listener(context);
            ConsumerRecord<String, byte[]> record = record(UUID.randomUUID());

            inTransaction(context, () -> listener.on(record));
            inTransaction(context, () -> listener.on(record));

            assertThat(invoices(context)).isEqualTo(1);
            assertThat(context.getBean(SpringInbox.class).isProcessed("billing", eventId(record)))
                    .isTrue();
        });
    }

    @Test
    @DisplayName("a listener whose transaction rolls back leaves no record: the redelivery runs the work")
    void rollbackForgets() {
        runner.run(context -> {
            createInvoices(context);
            BillingListener listener = listener(context);
            ConsumerRecord<String, byte[]> record = record(UUID.randomUUID());

            assertThatThrownBy(() -> inTransaction(context, () -> {
                        listener.on(record);
                        throw new IllegalStateException("the listener failed after its write");
                    }))
                    .hasMessageContaining("failed after its write");
            assertThat(invoices(context)).isZero();

            inTransaction(context, () -> listener.on(record));
            assertThat(invoices(context)).isEqualTo(1);
        });
    }

    @Test
    @DisplayName("outside a transaction it refuses, saying to make the listener @Transactional")
    void outsideATransaction() {
        runner.run(context -> assertThatThrownBy(
                        () -> context.getBean(SpringInbox.class).once("billing", "m-1", () -> {}))
                .isInstanceOf(OutboxException.class)
                .hasMessageContaining("@Transactional"));
    }

    @Test
    @DisplayName("is off unless outbox.inbox.enabled=true")
    void offByDefault() {
        runner.withPropertyValues("outbox.inbox.enabled=false")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(SpringInbox.class));
    }

    private static BillingListener listener(ApplicationContext context) {
        return new BillingListener(context.getBean(SpringInbox.class), context.getBean(JdbcTemplate.class));
    }

    private static ConsumerRecord<String, byte[]> record(UUID eventId) {
        ConsumerRecord<String, byte[]> record = new ConsumerRecord<>("orders", 0, 0L, "order-1", new byte[0]);
        record.headers().add("ce_id", eventId.toString().getBytes(StandardCharsets.UTF_8));
        return record;
    }

    private static String eventId(ConsumerRecord<String, byte[]> record) {
        return new String(record.headers().lastHeader("ce_id").value(), StandardCharsets.UTF_8);
    }

    private void createInvoices(ApplicationContext context) {
        context.getBean(JdbcTemplate.class).execute("CREATE TABLE " + schema + ".invoices (order_id text)");
    }

    private long invoices(ApplicationContext context) {
        return context.getBean(JdbcTemplate.class)
                .queryForObject("SELECT count(*) FROM " + schema + ".invoices", Long.class);
    }

    private static void inTransaction(ApplicationContext context, Runnable work) {
        context.getBean(TransactionTemplate.class).executeWithoutResult(status -> work.run());
    }
}
