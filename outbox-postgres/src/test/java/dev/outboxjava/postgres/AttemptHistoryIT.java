package dev.outboxjava.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.DeadLetterReason;
import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.DeadLetterMark;
import dev.outboxjava.core.port.RetryMark;
import dev.outboxjava.testkit.postgres.PostgresExtension;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The failed attempts' table is optional for the relay: without it, failures are marked all the same. */
@DisplayName("attempt history without its table")
class AttemptHistoryIT {

    @RegisterExtension
    static final PostgresExtension postgres = new PostgresExtension();

    @Test
    @DisplayName("a table created without the operator migrations still gets its retries and dead letters marked")
    void marksWithoutTheAttemptsTable() {
        PostgresOutboxStore store = PostgresOutboxStore.create(
                postgres.dataSource(),
                PostgresOutboxConfig.builder()
                        .layout(StoreLayout.IN_PLACE)
                        .tableName(postgres.schema() + ".no_history")
                        .build());
        store.ensureSchema();
        postgres.fixture().execute("DROP TABLE " + postgres.schema() + ".no_history_attempts");
        OutboxEvent retried = OutboxEvent.builder()
                .type("t")
                .destination("d")
                .payload("{}".getBytes(StandardCharsets.UTF_8))
                .build();
        OutboxEvent dead = OutboxEvent.builder()
                .type("t")
                .destination("d")
                .payload("{}".getBytes(StandardCharsets.UTF_8))
                .build();
        store.transactional().inTransaction(connection -> List.of(retried, dead));
        UUID lease = UUID.randomUUID();
        Instant now = Instant.now();
        assertThat(store.lease(lease, 2, now)).hasSize(2);

        assertThat(store.markRetry(lease, List.of(new RetryMark(retried.id(), "later", now.plusSeconds(60))), now)
                        .marked())
                .containsExactly(retried.id());
        assertThat(store.markDeadLettered(lease, List.of(new DeadLetterMark(dead.id(), "never")), now)
                        .marked())
                .containsExactly(dead.id());

        assertThat(store.find(retried.id()).orElseThrow().attempts()).isEqualTo(1);
        assertThat(store.find(dead.id()).orElseThrow().status()).isEqualTo(EventStatus.FAILED);
        assertThat(store.cleanUp(now.plusSeconds(1), 10)).isZero();
        postgres.fixture()
                .execute("DROP TABLE " + postgres.schema() + ".no_history, " + postgres.schema() + ".no_history_audit");
    }

    @Test
    @DisplayName("an attempts table of an older migration (no stopped_by column) still gets dead letters marked")
    void marksWithAnOlderAttemptsTable() {
        PostgresOutboxStore store = PostgresOutboxStore.create(
                postgres.dataSource(),
                PostgresOutboxConfig.builder()
                        .tableName(postgres.schema() + ".old_history")
                        .build());
        store.ensureSchema();
        postgres.fixture().execute("ALTER TABLE " + postgres.schema() + ".old_history_attempts DROP COLUMN stopped_by");
        OutboxEvent dead = OutboxEvent.builder()
                .type("t")
                .destination("d")
                .payload("{}".getBytes(StandardCharsets.UTF_8))
                .build();
        store.transactional().inTransaction(connection -> List.of(dead));
        UUID lease = UUID.randomUUID();
        Instant now = Instant.now();
        assertThat(store.lease(lease, 1, now)).hasSize(1);

        assertThat(store.markDeadLettered(
                                lease,
                                List.of(new DeadLetterMark(
                                        dead.id(), "never", Optional.of(DeadLetterReason.notRetryable()))),
                                now)
                        .marked())
                .containsExactly(dead.id());

        assertThat(store.find(dead.id()).orElseThrow().status()).isEqualTo(EventStatus.FAILED);
    }

    @Test
    @DisplayName("in delete-on-publish mode the cleaner removes the attempts of published events, not a dead letter's")
    void deleteOnPublishCleanup() {
        PostgresOutboxStore store = PostgresOutboxStore.create(
                postgres.dataSource(),
                PostgresOutboxConfig.builder()
                        .layout(StoreLayout.IN_PLACE)
                        .tableName(postgres.schema() + ".deleting")
                        .completionMode(dev.outboxjava.core.port.CompletionMode.DELETE_ON_PUBLISH)
                        .build());
        store.ensureSchema();
        OutboxEvent published = OutboxEvent.builder()
                .type("t")
                .destination("d")
                .payload("{}".getBytes(StandardCharsets.UTF_8))
                .build();
        OutboxEvent dead = OutboxEvent.builder()
                .type("t")
                .destination("d")
                .payload("{}".getBytes(StandardCharsets.UTF_8))
                .build();
        store.transactional().inTransaction(connection -> List.of(published, dead));
        Instant now = Instant.now();
        UUID first = UUID.randomUUID();
        assertThat(store.lease(first, 2, now)).hasSize(2);
        store.markRetry(first, List.of(new RetryMark(published.id(), "later", now)), now);
        store.markDeadLettered(first, List.of(new DeadLetterMark(dead.id(), "never")), now);
        UUID second = UUID.randomUUID();
        assertThat(store.lease(second, 2, now)).extracting(OutboxEvent::id).containsExactly(published.id());
        store.markPublished(second, List.of(published.id()), now);
        assertThat(store.find(published.id())).isEmpty();
        assertThat(store.attempts(published.id())).hasSize(1);

        store.cleanUp(now.plusSeconds(1), 100);

        assertThat(store.attempts(published.id())).isEmpty();
        assertThat(store.attempts(dead.id())).hasSize(1);
        postgres.fixture()
                .execute("DROP TABLE " + postgres.schema() + ".deleting, " + postgres.schema() + ".deleting_audit, "
                        + postgres.schema() + ".deleting_attempts");
    }
}
