package dev.outboxjava.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.zaxxer.hikari.HikariDataSource;
import dev.outboxjava.benchmarks.internal.MinuteStats;
import dev.outboxjava.benchmarks.internal.OutboxTables;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.postgres.PostgresOutboxConfig;
import dev.outboxjava.postgres.PostgresOutboxStore;
import dev.outboxjava.postgres.StoreLayout;
import dev.outboxjava.postgres.WakeUpMode;
import dev.outboxjava.testkit.fixture.LocalPort;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Scenario 7 reads each layout's own counters: the dead tuples of the tables a relay changes and the scans
 * of the index its lease starts from, for the plain in-place table as for the partitioned append-only one.
 */
class LongTransactionSampleIT {

    @ParameterizedTest
    @EnumSource(StoreLayout.class)
    void theCountersOfEveryLayoutAreRead(StoreLayout layout) throws Exception {
        assumeTrue(LocalPort.isOpen("127.0.0.1", 5432, 1_000), "no PostgreSQL on 127.0.0.1:5432");
        PostgresOutboxConfig config = PostgresOutboxConfig.builder()
                .tableName("sample_it_" + UUID.randomUUID().toString().substring(0, 8))
                .layout(layout)
                .wakeUpMode(WakeUpMode.NONE)
                .build();
        try (HikariDataSource pool = new HikariDataSource()) {
            pool.setJdbcUrl(BenchmarkConfig.DEFAULT_JDBC_URL);
            pool.setUsername("postgres");
            PostgresOutboxStore store = PostgresOutboxStore.create(pool, config);
            store.ensureSchema();
            try {
                List<OutboxEvent> events = new ArrayList<>();
                for (int i = 0; i < 20; i++) {
                    events.add(OutboxEvent.builder()
                            .clock(Clock.systemUTC())
                            .type("sampled")
                            .key("k" + i)
                            .destination("sample")
                            .payload(new byte[16])
                            .build());
                }
                store.transactional().inTransaction(connection -> events);
                UUID lease = UUID.randomUUID();
                List<OutboxEvent> leased = store.lease(lease, 100, Instant.now().plusSeconds(1));
                assertThat(leased).hasSize(20);
                store.markPublished(lease, leased.stream().map(OutboxEvent::id).toList(), Instant.now());

                // sessions report their counters within seconds of going idle. The log's partitions of 20 rows
                // are read without their index; the in-place lease goes through its pending index
                boolean indexRead = layout == StoreLayout.IN_PLACE;
                MinuteStats.Sample sample = await().atMost(Duration.ofSeconds(30))
                        .pollInterval(Duration.ofMillis(500))
                        .until(
                                () -> LongTransactionScenario.sample(pool, layout, config.tableName(), 0),
                                s -> s.deadTuples() > 0 && (!indexRead || s.indexScans() > 0));
                if (indexRead) {
                    assertThat(sample.indexTuplesRead()).isPositive();
                }
            } finally {
                try (Connection connection = pool.getConnection();
                        Statement statement = connection.createStatement()) {
                    statement.execute(OutboxTables.dropStatement(config));
                }
            }
        }
    }
}
