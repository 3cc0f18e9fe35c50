package dev.outboxjava.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.WakeUpMode;
import dev.outboxjava.testkit.RecordingPublisher;
import java.util.OptionalInt;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("A worker on the application's pool")
class ConnectionBudgetTest {

    @Test
    @DisplayName("with more relay threads than the pool has connections fails at build, naming both settings")
    void tooManyRelayThreads() {
        try (HikariDataSource pool = pool(2)) {
            OutboxWorker.Builder builder = OutboxWorker.builder()
                    .postgres(
                            pool,
                            PostgresOutboxConfig.builder()
                                    .wakeUpMode(WakeUpMode.NOTIFY_AFTER_COMMIT)
                                    .build())
                    .publisher(new RecordingPublisher())
                    .config(OutboxWorkerConfig.builder().relayThreads(2).build());

            assertThatThrownBy(builder::build)
                    .isInstanceOf(InvalidSettingsException.class)
                    .hasMessageContaining("OutboxWorkerConfig.builder().relayThreads(...)")
                    .hasMessageContaining("maximum pool size is 2")
                    .hasMessageContaining("needs 3 connections");
        }
    }

    @Test
    @DisplayName("fits when the pool holds every relay thread (and no LISTEN connection is needed)")
    void fits() {
        try (HikariDataSource pool = pool(2);
                OutboxWorker worker = OutboxWorker.builder()
                        .postgres(
                                pool,
                                PostgresOutboxConfig.builder()
                                        .wakeUpMode(WakeUpMode.IN_PROCESS)
                                        .build())
                        .publisher(new RecordingPublisher())
                        .config(OutboxWorkerConfig.builder().relayThreads(2).build())
                        .build()) {
            assertThat(worker.config().relayThreads()).isEqualTo(2);
        }
    }

    @Test
    @DisplayName("reads the size of a HikariCP pool, and none from a data source that does not tell")
    void poolSize() {
        try (HikariDataSource pool = pool(7)) {
            assertThat(ConnectionBudget.poolSize(pool)).hasValue(7);
        }
        assertThat(ConnectionBudget.poolSize(new org.postgresql.ds.PGSimpleDataSource()))
                .isEqualTo(OptionalInt.empty());
    }

    private static HikariDataSource pool(int size) {
        HikariDataSource pool = new HikariDataSource();
        pool.setJdbcUrl("jdbc:postgresql://127.0.0.1:5432/test");
        pool.setMaximumPoolSize(size);
        return pool;
    }
}
