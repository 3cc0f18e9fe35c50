package dev.outboxjava.spring.boot;

import dev.outboxjava.core.OutboxException;
import dev.outboxjava.postgres.inbox.PostgresInbox;
import java.sql.Connection;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Processes each message once per id, inside the listener's Spring transaction: the message id is
 * recorded on the transaction's own connection, so the record and the listener's writes commit together
 * or not at all, and a redelivered message (the same outbox event id) is skipped. For
 * {@code @KafkaListener} and {@code @RabbitListener} methods that are {@code @Transactional}:
 *
 * <pre>{@code
 * @KafkaListener(topics = "orders", groupId = "billing")
 * @Transactional
 * public void on(ConsumerRecord<String, byte[]> record) {
 *     String eventId = new String(record.headers().lastHeader("ce_id").value(), UTF_8);
 *     inbox.once("billing", eventId, () -> invoices.open(record.value()));
 * }
 * }</pre>
 *
 * <p>A concurrent duplicate waits until the first delivery's transaction ends, then is skipped (commit) or
 * runs (rollback). Enabled with {@code outbox.inbox.enabled=true}, which also puts the inbox table
 * ({@code outbox.inbox.table}) in place beside the outbox's. Thread-safe.
 */
public final class SpringInbox {

    private final DataSource dataSource;
    private final PostgresInbox inbox;

    SpringInbox(DataSource dataSource, PostgresInbox inbox) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.inbox = Objects.requireNonNull(inbox, "inbox");
    }

    /**
     * Runs {@code work} unless {@code consumer} has processed {@code messageId} already, in the current
     * transaction.
     *
     * @param consumer  who processes (e.g. the listener's group id): each consumer sees each message once
     * @param messageId the message's id: an outbox event's id ({@code ce_id} on Kafka, {@code message_id} on RabbitMQ)
     * @return whether the work ran (false: a duplicate, skipped)
     * @throws OutboxException when no Spring transaction is active
     */
    public boolean once(String consumer, String messageId, Runnable work) {
        Objects.requireNonNull(work, "work");
        return once(consumer, messageId, () -> {
                    work.run();
                    return Boolean.TRUE;
                })
                .isPresent();
    }

    /**
     * As {@link #once(String, String, Runnable)}, returning the work's result, or empty for a duplicate
     * (or work that returned null).
     */
    public <T> Optional<T> once(String consumer, String messageId, Supplier<T> work) {
        Objects.requireNonNull(work, "work");
        if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            throw new OutboxException("no Spring transaction is active: process messages through the inbox inside "
                    + "a @Transactional listener method (or TransactionTemplate.execute), so that the message id "
                    + "is recorded with the listener's writes; outside one a failure after the record would lose "
                    + "the message");
        }
        Connection connection = DataSourceUtils.getConnection(dataSource);
        try {
            if (!inbox.claim(connection, consumer, messageId)) {
                return Optional.empty();
            }
        } finally {
            DataSourceUtils.releaseConnection(connection, dataSource);
        }
        return Optional.ofNullable(work.get());
    }

    /** Whether {@code consumer} has processed {@code messageId} (committed). */
    public boolean isProcessed(String consumer, String messageId) {
        return inbox.isProcessed(consumer, messageId);
    }

    /** The inbox underneath, for its clean-up ({@link PostgresInbox#cleanUp}). */
    public PostgresInbox inbox() {
        return inbox;
    }
}
