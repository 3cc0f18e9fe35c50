package dev.outboxjava.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxjava.core.EventStatus;
import dev.outboxjava.core.OutboxEvent;
import dev.outboxjava.core.time.ManualClock;
import dev.outboxjava.testkit.fixture.ServiceConfig;
import dev.outboxjava.testkit.fixture.ServiceOrigin;
import dev.outboxjava.testkit.postgres.PostgresFixture;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The path of a machine with only a JDK and Maven: the fixture's embedded PostgreSQL runs the store. */
class EmbeddedPostgresFixtureIT {

    @Test
    @DisplayName("with local services skipped the fixture starts an embedded PostgreSQL the store works on")
    void embedded() {
        String previous = System.getProperty(ServiceConfig.SKIP_LOCAL);
        System.setProperty(ServiceConfig.SKIP_LOCAL, "true");
        try (PostgresFixture postgres = PostgresFixture.start()) {
            assertThat(postgres.origin()).isEqualTo(ServiceOrigin.EMBEDDED);
            PostgresOutboxStore store = PostgresOutboxStore.create(
                    postgres.dataSource(),
                    PostgresOutboxConfig.builder()
                            .layout(StoreLayout.IN_PLACE)
                            .tableName(postgres.newTableName())
                            .build());
            store.ensureSchema();
            ManualClock clock = ManualClock.startingAtEpochOf2024();
            List<OutboxEvent> events = TestEvents.events(clock, 3);
            store.transactional().inTransaction(connection -> events);

            UUID leaseId = UUID.randomUUID();
            assertThat(store.lease(leaseId, 10, clock.instant())).hasSize(3);
            assertThat(store.markPublished(
                                    leaseId,
                                    events.stream().map(OutboxEvent::id).toList(),
                                    clock.instant())
                            .marked())
                    .hasSize(3);
            assertThat(store.countByStatus()).containsEntry(EventStatus.SENT, 3L);
        } finally {
            if (previous == null) {
                System.clearProperty(ServiceConfig.SKIP_LOCAL);
            } else {
                System.setProperty(ServiceConfig.SKIP_LOCAL, previous);
            }
        }
    }
}
