package dev.outboxjava.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.port.DeadLetterMark;
import dev.outboxjava.core.port.RetryMark;
import dev.outboxjava.testkit.postgres.PostgresExtension;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
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
        PostgresOutboxStore store = PostgresOutboxStore.create(postgres.dataSource(), PostgresOutboxConfig.builder()
                .tableName(postgres.schema() + ".no_history").build());
        store.ensureSchema();
        postgres.fixture().execute("DROP TABLE " + postgres.schema() + ".no_history_attempts");
        OutboxEvent retried = OutboxEvent.builder().type("t").destination("d")
                .payload("{}".getBytes(StandardCharsets.UTF_8)).build();
        OutboxEvent dead = OutboxEvent.builder().type("t").destination("d")
                .payload("{}".getBytes(StandardCharsets.UTF_8)).build();
        store.transactional().inTransaction(connection -> List.of(retried, dead));
        UUID lease = UUID.randomUUID();
        Instant now = Instant.now();
        assertThat(store.lease(lease, 2, now)).hasSize(2);

        assertThat(store.markRetry(lease, List.of(new RetryMark(retried.id(), "later", now.plusSeconds(60))), now)
                .marked()).containsExactly(retried.id());
        assertThat(store.markDeadLettered(lease, List.of(new DeadLetterMark(dead.id(), "never")), now).marked())
                .containsExactly(dead.id());

        assertThat(store.find(retried.id()).orElseThrow().attempts()).isEqualTo(1);
        assertThat(store.find(dead.id()).orElseThrow().status()).isEqualTo(EventStatus.FAILED);
        assertThat(store.cleanUp(now.plusSeconds(1), 10)).isZero();
        postgres.fixture().execute("DROP TABLE " + postgres.schema() + ".no_history, " + postgres.schema()
                + ".no_history_audit");
    }
}
